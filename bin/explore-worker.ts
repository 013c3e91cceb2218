// A worker process of `throttlelab explore`: it runs the jobs its parent sends, one at a time, and
// sends each run back. It holds no state a job could leave behind for the next but loaded modules.
import { runExploreJob, type ExploreJob } from './explore-job.js';

process.on('message', (message: { job: ExploreJob }) => {
  void runExploreJob(message.job, process.env).then((run) => process.send?.({ run }));
});
// The parent went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
