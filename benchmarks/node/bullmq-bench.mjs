// Drives BullMQ for deferlock's benchmarks (issue 19). One process per benchmark group; the Java harness
// sends one JSON request per line on stdin and reads one JSON answer per line on stdout:
//   {"op":"addFor","ms":500,"delay":3600000}          -> {"count":n,"seconds":s,"total":t}   sequential queue.add
//                                                        (total: the adds of the warm-up included)
//   {"op":"bulkFor","ms":500,"chunk":1000,"delay":..} -> {"count":n,"seconds":s}   queue.addBulk of chunk jobs
//   {"op":"fill","n":1000,"delay":0}                  -> {"count":n}               addBulk in chunks of 1000
//                                                        (fewer when 1000 payloads would exceed 1 MiB)
//   {"op":"drain","n":1000,"concurrency":8}           -> {"seconds":s}             Worker until n completed
//   {"op":"lateness","jobs":[[dueMicros,...]],...}    -> see lateness() below
//   {"op":"idleStart"} / {"op":"idleStop"}            -> {"ok":true}               one idle Worker
//   {"op":"faultHold","lockMs":2000}                  -> {"ok":true}, then {"got":seq} per job taken; the
//                                                        handlers never finish (the harness SIGKILLs us)
//   {"op":"collect","n":50,"lockMs":2000,"ms":9000}   -> {"handled":{seq:epochMicros}} jobs handled in ms
//   {"op":"slow","lockMs":500,"handlerMs":5000}       -> {"runs":k} runs of one slow job, two Workers
// lockMs sets both lockDuration and stalledInterval: BullMQ's counterpart of a visibility timeout.
//   {"op":"close"}
// addFor, bulkFor and fill take an optional "size": the payload's characters (default 100).
// Usage: node bullmq-bench.mjs <host> <port> <queue name>. Payloads are 100-character strings, like the
// Java sides; jobs are added with removeOnComplete/removeOnFail so finished jobs leave Redis (as deferlock's
// acked jobs do). Everything else is BullMQ's defaults.
import { Queue, Worker } from 'bullmq';
import readline from 'node:readline';

const [host, port, name] = process.argv.slice(2);
const connection = { host, port: Number(port), maxRetriesPerRequest: null };
const queue = new Queue(name, { connection });
const opts = { removeOnComplete: true, removeOnFail: true };
let idle = null;

const nowMicros = () => Math.round((performance.timeOrigin + performance.now()) * 1000);
const payload = (seq, due, size = 100) => {
  let s = `${seq}:${due}:`;
  return s + 'x'.repeat(Math.max(0, size - s.length));
};
const dueOf = (p) => Number(p.split(':')[1]);

async function addFor({ ms, delay, warmMs = 0, size = 100 }) {
  let seq = 0;
  const warmEnd = Date.now() + warmMs;
  while (Date.now() < warmEnd) await queue.add('j', payload(seq++, 0, size), { ...opts, delay });
  const start = performance.now();
  let count = 0;
  while (performance.now() - start < ms) {
    await queue.add('j', payload(seq++, 0, size), { ...opts, delay });
    count++;
  }
  return { count, seconds: (performance.now() - start) / 1000, total: seq };
}

function bulkOf(from, chunk, delay, size = 100) {
  const jobs = [];
  for (let i = 0; i < chunk; i++) jobs.push({ name: 'j', data: payload(from + i, 0, size), opts: { ...opts, delay } });
  return jobs;
}

async function bulkFor({ ms, chunk, delay, warmMs = 0 }) {
  let seq = 0;
  const warmEnd = Date.now() + warmMs;
  while (Date.now() < warmEnd) { await queue.addBulk(bulkOf(seq, chunk, delay)); seq += chunk; }
  const start = performance.now();
  let count = 0;
  while (performance.now() - start < ms) {
    await queue.addBulk(bulkOf(seq, chunk, delay));
    seq += chunk;
    count += chunk;
  }
  return { count, seconds: (performance.now() - start) / 1000 };
}

async function fill({ n, delay, size = 100 }) {
  // at most 1 MiB of payloads per addBulk, as the Java sides
  const chunk = Math.max(1, Math.min(1000, Math.floor(1048576 / size)));
  for (let from = 0; from < n; from += chunk) await queue.addBulk(bulkOf(from, Math.min(chunk, n - from), delay, size));
  return { count: n };
}

async function drain({ n, concurrency }) {
  let done = 0;
  let finish;
  const all = new Promise((r) => (finish = r));
  const start = performance.now();
  const worker = new Worker(name, async () => {}, { connection, concurrency, autorun: false });
  worker.on('completed', () => { if (++done === n) finish(); });
  worker.run();
  await all;
  const seconds = (performance.now() - start) / 1000;
  await worker.close();
  return { seconds };
}

// Jobs fall due at the given client times (µs); each is added ahead of its due time by the producer loop, in
// ticks of 50 ms, with its own delay; lateness = handler start − due, both read from this process's clock.
async function lateness({ rate, ms, delayMs, concurrency, graceMs }) {
  const n = Math.floor((rate * ms) / 1000);
  const late = [];
  let early = 0;
  let lastHandled = 0;
  const worker = new Worker(name, async (job) => {
    const now = nowMicros();
    const l = now - dueOf(job.data);
    if (l < 0) early++;
    late.push(l);
    lastHandled = now;
  }, { connection, concurrency });
  await worker.waitUntilReady();
  const t0 = nowMicros() + delayMs * 1000;
  let next = 0;
  while (next < n) {
    const horizon = nowMicros() + delayMs * 1000;
    const jobs = [];
    while (next < n && t0 + (next * 1e6) / rate <= horizon + 50_000) {
      const due = Math.round(t0 + (next * 1e6) / rate);
      jobs.push({ name: 'j', data: payload(next, due), opts: { ...opts, delay: Math.max(0, Math.ceil((due - nowMicros()) / 1000)) } });
      next++;
    }
    if (jobs.length) await queue.addBulk(jobs);
    await new Promise((r) => setTimeout(r, 50));
  }
  const deadline = Date.now() + delayMs + graceMs;
  while (late.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await worker.close();
  return { n, handled: late.length, early, firstDue: t0, lastHandled, lateMicros: late };
}

const faultOpts = (lockMs, concurrency) => ({ connection, concurrency, lockDuration: lockMs, stalledInterval: lockMs });

async function faultHold({ lockMs }) {
  const w = new Worker(name, async (job) => {
    process.stdout.write(JSON.stringify({ got: job.data.split(':')[0] }) + '\n');
    await new Promise(() => {});
  }, faultOpts(lockMs, 8));
  await w.waitUntilReady();
  return { ok: true };
}

async function collect({ n, lockMs, ms }) {
  const handled = {};
  let count = 0;
  const w = new Worker(name, async (job) => {
    const seq = job.data.split(':')[0];
    if (!(seq in handled)) { handled[seq] = nowMicros(); count++; }
  }, faultOpts(lockMs, 8));
  const deadline = Date.now() + ms;
  while (count < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await w.close();
  return { handled };
}

async function slow({ lockMs, handlerMs }) {
  let runs = 0;
  let stop = false;
  const handler = async () => {
    runs++;
    const end = Date.now() + handlerMs;
    while (!stop && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  };
  const workers = [new Worker(name, handler, faultOpts(lockMs, 1)), new Worker(name, handler, faultOpts(lockMs, 1))];
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  await queue.add('slow', payload(0, 0), opts);
  await new Promise((r) => setTimeout(r, handlerMs + 2 * lockMs + 500));
  stop = true;
  await Promise.all(workers.map((w) => w.close()));
  return { runs };
}

async function handle(req) {
  switch (req.op) {
    case 'addFor': return addFor(req);
    case 'bulkFor': return bulkFor(req);
    case 'fill': return fill(req);
    case 'drain': return drain(req);
    case 'lateness': return lateness(req);
    case 'faultHold': return faultHold(req);
    case 'collect': return collect(req);
    case 'slow': return slow(req);
    case 'idleStart':
      idle = new Worker(name, async () => {}, { connection, concurrency: 1 });
      await idle.waitUntilReady();
      return { ok: true };
    case 'idleStop':
      if (idle) await idle.close();
      idle = null;
      return { ok: true };
    case 'close':
      await queue.close();
      process.stdout.write(JSON.stringify({ ok: true }) + '\n');
      process.exit(0);
    default: throw new Error('unknown op ' + req.op);
  }
}

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  try {
    const out = await handle(JSON.parse(line));
    process.stdout.write(JSON.stringify(out) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e && e.stack || e) }) + '\n');
  }
}
await queue.close();
process.exit(0);
