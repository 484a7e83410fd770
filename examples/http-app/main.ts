/**
 * Runs the example HTTP app: `node examples/start.js` (after `npm install`,
 * which builds dist/). PORT and HOST choose where it listens; Ctrl-C closes it
 * gracefully.
 */
import { createApp } from './app';

async function main(): Promise<void> {
  const app = createApp().withOptions({ development: { console: process.env.FW_LOG !== '0' } });
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, process.env.HOST ?? '127.0.0.1');
  console.log(`example HTTP app on ${app.url} — try ${app.url}/api/v1/users`);
  const stop = (): void => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
