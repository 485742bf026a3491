"""Self-test questions for lesson 06: Little's law, queues near capacity, batching policies."""

from ... import queueing
from ...models import latency, laws
from ..question import Question

# The static-batching setup of the lesson: Poisson arrivals at 600 req/s, t(b) = 8 ms + 0.5 ms x b.
SLO_SETUP = dict(rate=600.0, t0=0.008, t1=0.0005, n=100_000, seed=0, slo=0.050)


def largest_static_batch_under_slo(rate, t0, t1, n, seed, slo, batches=range(1, 65)):
    """Largest static batch whose simulated p99 latency meets ``slo`` (None if none does)."""
    res = queueing.sweep("static", queueing.Poisson(rate, n), queueing.affine(t0, t1), vary="batch_size",
                         values=batches, seed=seed)
    return latency.largest_batch_under_slo({b: r["p99"] for b, r in res.items()}, slo)


QUESTIONS = [
    Question("l06-little-inflight", 6,
             "A model server receives 50 requests/s and a request spends 120 ms in it on average. How many "
             "requests are inside the server on average?",
             "L = lambda x W = 50/s x 0.12 s = 6 requests, whatever the distribution of arrivals or service.",
             reference=lambda: laws.littles_law(arrival_rate=50, time_in_system=0.120), unit="requests"),
    Question("l06-closed-loop-throughput", 6,
             "A load test keeps exactly 4 requests in flight (a new one is sent as soon as one returns) and each "
             "takes 50 ms. What throughput does it measure, in requests/s?",
             "lambda = L / W = 4 / 0.05 s = 80 req/s: with too little concurrency the test measures itself, "
             "not the capacity of the server.",
             reference=lambda: laws.littles_law(in_flight=4, time_in_system=0.050), unit="req/s"),
    Question("l06-mm1-time", 6,
             "An M/M/1 queue has arrival rate 90/s and service rate 100/s. What is the mean time in system, in ms?",
             "W = 1 / (mu - lambda) = 1 / (100 - 90) s = 100 ms, ten times the 10 ms service time.",
             reference=lambda: queueing.mm1(90, 100).mean_time_in_system * 1e3, unit="ms"),
    Question("l06-hockey-stick", 6,
             "In an M/M/1 queue, utilization rises from 0.72 to 0.93 (same service rate). By what factor does the "
             "mean queueing wait Wq grow?",
             "Wq = rho / (mu (1 - rho)): 0.93/0.07 = 13.3 against 0.72/0.28 = 2.57, a factor 5.17 for 29% more load; "
             "near capacity each step of load costs more wait than the last.",
             reference=lambda: queueing.mm1(9.3, 10).mean_wait / queueing.mm1(7.2, 10).mean_wait, unit="x"),
    Question("l06-md1", 6,
             "Requests arrive as a Poisson process at 150 per second, and every one takes exactly 5 ms to serve. "
             "What is the mean time a request waits in the queue, in ms?",
             "Utilization rho = 150 x 0.005 = 0.75. With constant service (M/D/1) Wq = rho / (2 mu (1 - rho)) = "
             "0.75 / (2 x 200 x 0.25) = 7.5 ms, half the 15 ms an exponential service of the same mean would give.",
             reference=lambda: 1e3 * 0.75 / (2 * 200 * 0.25), unit="ms"),
    Question("l06-slo-batch", 6,
             "In the lesson's static-batching setup (Poisson arrivals at 600 req/s, t(b) = 8 ms + 0.5 ms x b, "
             "100,000 simulated requests, seed 0), what is the largest batch size whose p99 latency meets an "
             "80 ms SLO?",
             "Below 7 the server cannot keep up and the queue grows without bound; above, every extra request "
             "in a batch adds fill time (1/600 s) and service time, so p99 climbs past 80 ms after batch 28.",
             reference=lambda: largest_static_batch_under_slo(**{**SLO_SETUP, "slo": 0.080}), rtol=0,
             unit="requests"),
    Question("l06-token-budget", 6,
             "A continuous-batching server's step takes 20 ms plus 0.1 ms per prompt token it prefills. A burst of "
             "20 prompts of 512 tokens arrives, and the token budget (16,384) lets the whole burst's prefill into "
             "one step. How long does a sequence already generating wait for its next token across that step, in ms?",
             "The step prefills 20 x 512 = 10,240 tokens: 20 + 1,024 = 1,044 ms, and every running sequence waits "
             "for it. A budget of 512 tokens (one prompt a step) would cap that pause at about 71 ms, at the price "
             "of admitting the burst one prompt per step.",
             reference=lambda: 20 + 0.1 * 20 * 512, unit="ms"),
]
