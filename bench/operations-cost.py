# What the report, the trace and the notifications cost: cursor-wrap run in turns with each
# switched on, with none (this build and a baseline build, e.g. the main branch's), and with
# all, in a shuffled order each round so that load from elsewhere on the machine falls on each
# alike. Per run: wall time and CPU time (user + system of the wrapper and its children, from
# getrusage), on one quick turn of the fake agent (start-up) and on 100,000 small events
# (throughput). The trace goes to, and webhooks to, a local sink that answers 200.
#
#   python3 bench/operations-cost.py <rounds> <baseline cursor-wrap.js>
#
# (Python for getrusage of the children: Node's spawnSync does not report it.)
import os, random, resource, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
rounds = int(sys.argv[1])
main_cli = os.path.abspath(sys.argv[2])
branch_cli = os.path.join(root, "apps/cursor-wrap/bin/cursor-wrap.js")
fake = os.path.join(root, "packages/testkit/bin/fake-cursor-agent.js")
sink = subprocess.Popen(["node", "-e", """
const server = require("node:http").createServer((request, response) => {
  request.resume();
  request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"));
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
"""], stdout=subprocess.PIPE, text=True)
port = sink.stdout.readline().strip()
work = tempfile.mkdtemp(prefix="cw-cost-")
stream = os.path.join(work, "small.jsonl")
subprocess.run(["node", "--input-type=module", "-e",
  f"import {{ writeRealisticStream }} from '{root}/bench/lib/stream.mjs'; writeRealisticStream('{stream}', {{ smallEvents: 100000, largeResults: 0 }});"], check=True)
cat_agent = os.path.join(work, "cat-agent.sh")
open(cat_agent, "w").write(f'#!/bin/sh\nexec cat "{stream}"\n'); os.chmod(cat_agent, 0o755)
size = os.path.getsize(stream)
on = ["--report", os.path.join(work, "r.json"), "--otel", "--on-verdict", "/bin/true",
      "--notify", f"http://127.0.0.1:{port}/hook"]
configs = {"baseline": (main_cli, []), "all off": (branch_cli, []),
  "report": (branch_cli, on[0:2]), "otel": (branch_cli, ["--otel"]),
  "on-verdict": (branch_cli, on[3:5]), "notify": (branch_cli, on[5:7]), "all on": (branch_cli, on)}
env = dict(os.environ, FAKE_AGENT_SCENARIO="quick")
for name in ("GITHUB_ACTIONS", "TRACEPARENT", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_TRACES_EXPORTER"): env.pop(name, None)
# Only the runs with --otel get a collector (the variable alone would switch tracing on).
traced_env = dict(env, OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}")
results = {(c, k): {"wall": [], "cpu": []} for c in configs for k in ("start-up", "throughput")}
devnull = open(os.devnull, "w")
def measure(args, stdin):
    run_env = traced_env if "--otel" in args else env
    before = resource.getrusage(resource.RUSAGE_CHILDREN); t = time.perf_counter()
    r = subprocess.run(args, input=stdin, stdout=devnull, stderr=subprocess.PIPE, env=run_env)
    wall = time.perf_counter() - t; after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0: raise SystemExit(f"{args} exited {r.returncode}: {r.stderr[-500:]}")
    return wall * 1000, ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
for round_ in range(rounds):
    order = list(configs); random.shuffle(order)
    for c in order:
        cli, extra = configs[c]
        logs = os.path.join(work, "logs")
        w, u = measure(["node", cli, "-p", "--agent-bin", fake, "--log-dir", logs, "--log-level", "silent", *extra], b"hi")
        results[(c, "start-up")]["wall"].append(w); results[(c, "start-up")]["cpu"].append(u)
        w, u = measure(["node", cli, "-p", "x", "--agent-bin", cat_agent, "--log-dir", logs, "--log-level", "silent", *extra], b"")
        results[(c, "throughput")]["wall"].append(w); results[(c, "throughput")]["cpu"].append(u)
    subprocess.run(["rm", "-rf", os.path.join(work, "logs")])
q = lambda v, p: sorted(v)[min(len(v) - 1, int(p * len(v)))]
for k in ("start-up", "throughput"):
    for c in configs:
        r = results[(c, k)]
        print(f"{k:10} {c:14} wall median {statistics.median(r['wall']):7.0f} ms (p10 {q(r['wall'],0.1):5.0f}, p90 {q(r['wall'],0.9):5.0f})  "
              f"cpu median {statistics.median(r['cpu']):7.0f} ms (p10 {q(r['cpu'],0.1):5.0f}, p90 {q(r['cpu'],0.9):5.0f})"
              + (f"  {100000/statistics.median(r['wall'])*1000/1000:.0f}k events/s" if k == "throughput" else ""))
print(f"stream: {size/1e6:.1f} MB, 100,000 small events; rounds: {rounds}")
subprocess.run(["rm", "-rf", work])
sink.kill()
