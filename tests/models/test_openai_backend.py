"""The openai backend against a fault-injecting server (every fault kind, budgets, refusals, secrets,
load) and against a real llama.cpp server with SmolLM2 (both modes, determinism, usage)."""

from __future__ import annotations

import base64
import json
import logging
import time
from email.utils import formatdate
from pathlib import Path

import pytest
import yaml

from lrworld.config.assembly import validate
from lrworld.core.schema import ConfigError
from lrworld.models import PromptItem, make_backend
from lrworld.models.backends.openai import OpenAIBackend, label_scores, public_url
from lrworld.models.retry import BackendError
from tests.support.fault_server import expected_label, prompt_digest

LABELS = ("A", "B", "C", "D")
SECRET = "sk-test-SECRET"


def item(prompt: str, qid: str | None = None, **kw) -> PromptItem:
    return PromptItem(qid=qid or prompt, prompt=prompt, labels=kw.pop("labels", LABELS), **kw)


def backend(srv, sleep=None, **cfg) -> OpenAIBackend:
    base = {"backend": "openai", "model": "fault-model", "base_url": srv.base_url, "timeout_s": 5}
    return OpenAIBackend("fm", {**base, **cfg}, sleep=sleep)


# -- configuration and identity -------------------------------------------------------------------


def test_identity_has_decoding_params_and_no_secret(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    b = make_backend("gpt", {"backend": "openai", "model": "gpt-4o-2024-08-06", "temperature": 0.01,
                             "mode": "choice", "max_tokens": 50,
                             "base_url": "https://user:pw@proxy.example:8443/v1/?api-key=XYZ#f"})
    ident = b.identity()
    assert ident["backend"] == "openai" and ident["model"] == "gpt-4o-2024-08-06"
    assert ident["base_url"] == "https://proxy.example:8443/v1"
    assert ident["temperature"] == 0.01
    assert ident["mode"] == "choice" and ident["max_tokens"] == 1 and ident["top_logprobs"] == 20
    text = json.dumps(ident) + repr(b)
    assert SECRET not in text and "pw" not in text and "XYZ" not in text
    gen = OpenAIBackend("g", {"backend": "openai", "model": "m"})
    assert gen.identity()["base_url"] == "https://api.openai.com/v1"
    assert gen.identity()["mode"] == "generate" and gen.identity()["top_logprobs"] is None
    assert public_url("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/v1"


def test_bad_config_is_rejected():
    with pytest.raises(ValueError, match="mode"):
        OpenAIBackend("x", {"mode": "logits"})
    with pytest.raises(ValueError, match="concurrency"):
        OpenAIBackend("x", {"concurrency": 0})
    with pytest.raises(ValueError, match="temperature"):
        OpenAIBackend("x", {"temperature": "hot"})


@pytest.mark.parametrize("timeout", [0, -1, 0.0])
def test_a_timeout_that_fails_every_request_is_refused_at_start_naming_the_key(timeout):
    cfg = yaml.safe_load((Path(__file__).resolve().parents[2] / "config.yaml").read_text())
    cfg["models"]["o"] = {"backend": "openai", "model": "m", "timeout_s": timeout}
    with pytest.raises(ConfigError, match=rf"^config: models\.o\.timeout_s: {timeout} is less than or equal to the minimum of 0$"):
        validate(cfg)
    cfg["models"]["o"]["timeout_s"] = 0.5
    validate(cfg)


def test_missing_key_without_base_url_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("MY_KEY", raising=False)
    b = OpenAIBackend("gpt", {"model": "gpt-4o", "api_key_env": "MY_KEY"})
    with pytest.raises(BackendError, match="MY_KEY is not set"):
        b.answer([item("q")])


def test_key_comes_from_the_named_env_var_or_dummy_for_local_servers(monkeypatch, fault_server):
    srv = fault_server()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend(srv).answer([item("one")])
    monkeypatch.setenv("OTHER_KEY", "sk-other-123456")
    backend(srv, api_key_env="OTHER_KEY").answer([item("two")])
    assert srv.auth_headers == {"Bearer EMPTY", "Bearer sk-other-123456"}


def test_label_scores_normalise_whitespace_and_keep_the_best():
    top = [("The", -0.5), (" B", -1.0), ("B", -1.5), ("\nA", -2.0), ("c", -0.1)]
    assert label_scores(LABELS, top) == [-2.0, -1.0, None, None]


# -- both modes, order, request shape ----------------------------------------------------------------


def test_choice_mode_picks_the_top_label_and_records_usage(fault_server):
    srv = fault_server()
    prompts = [f"choice question {i}" for i in range(12)]
    out = backend(srv, mode="choice", concurrency=4).answer([item(p) for p in prompts])
    for p, r in zip(prompts, out):
        want = expected_label(p)
        assert r.qid == p
        assert LABELS[r.choice_index] == want and r.raw_text == want
        assert r.label_logprobs[r.choice_index] == -0.1 and all(x is not None for x in r.label_logprobs)
        assert r.tokens_in == 3 and r.tokens_out == 1 and r.latency_s > 0
        assert r.served_model == "fault-model" and r.system_fingerprint == "fp_fault"
    req = srv.last_request[prompts[0]]
    assert req["max_tokens"] == 1 and req["logprobs"] is True and req["top_logprobs"] == 20
    assert req["temperature"] == 0.0 and req["model"] == "fault-model"


def test_choice_mode_without_a_label_in_top_logprobs(fault_server):
    srv = fault_server()
    [r] = backend(srv, mode="choice").answer([item("odd labels", labels=("X", "Y"))])
    assert r.choice_index is None and r.label_logprobs == [None, None]
    assert r.raw_text == expected_label("odd labels")  # the generated token


def test_generate_mode_returns_text_in_input_order(fault_server):
    srv = fault_server()
    prompts = [f"generate question {i}" for i in range(20)]
    out = backend(srv, concurrency=8, max_tokens=64, temperature=0.01, system="You recommend movies.").answer(
        [item(p) for p in prompts])
    assert [r.qid for r in out] == prompts
    for p, r in zip(prompts, out):
        assert r.raw_text == f"The answer is {expected_label(p)}. [{prompt_digest(p)}]"
        assert r.choice_index is None and r.tokens_out == 5
    req = srv.last_request[prompts[0]]
    assert req["messages"][0] == {"role": "system", "content": "You recommend movies."}
    assert req["messages"][1] == {"role": "user", "content": prompts[0]}
    assert req["max_tokens"] == 64 and req["temperature"] == 0.01 and "logprobs" not in req


def test_null_temperature_is_omitted_and_token_param_is_configurable(fault_server):
    srv = fault_server()
    backend(srv, temperature=None, max_tokens=99, token_param="max_completion_tokens").answer([item("reasoner")])
    req = srv.last_request["reasoner"]
    assert "temperature" not in req and "max_tokens" not in req and req["max_completion_tokens"] == 99
    with pytest.raises(ValueError, match="token_param"):
        backend(srv, token_param="tokens")


def test_images_are_sent_as_data_urls(fault_server, tmp_path):
    srv = fault_server()
    png = tmp_path / "poster.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    backend(srv).answer([item("look at this", image_paths=(str(png),))])
    content = srv.last_request["look at this"]["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "look at this"}
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png.read_bytes()


def test_answer_iter_yields_each_index_once_as_completed(fault_server):
    srv = fault_server()
    items = [item(f"iter {i}") for i in range(30)]
    seen = list(backend(srv, concurrency=5).answer_iter(items))
    assert sorted(i for i, _ in seen) == list(range(30))
    assert all(items[i].qid == r.qid for i, r in seen)
    assert list(backend(srv).answer_iter([])) == []


# -- faults ---------------------------------------------------------------------------------------------

RECOVERABLE = ["429:1", "429_ms:300", "429_noheader", "500", "502", "503", "truncated_json", "cut_body", "drop",
               "non_json", "slow:1.2"]


def test_every_recoverable_fault_is_retried_and_answered_once(fault_server, fake_sleep, caplog):
    script = {f"fault {k}": [k, k] for k in RECOVERABLE}  # each fault twice, then ok
    srv = fault_server(script)
    caplog.set_level(logging.INFO, logger="lrworld")
    out = backend(srv, fake_sleep, mode="choice", concurrency=16, timeout_s=0.4).answer(
        [item(p) for p in script])
    for p, r in zip(script, out):
        assert srv.requests[p] == 3 and srv.answered[p] == 1, p
        assert r.extra["attempts"] == 3 and LABELS[r.choice_index] == expected_label(p)
    assert len(fake_sleep.delays) == 2 * len(RECOVERABLE)
    log = caplog.text
    for reason in ("HTTP 429", "HTTP 500", "HTTP 502", "HTTP 503", "truncated or invalid JSON", "non-JSON body",
                   "RemoteProtocolError", "timeout after 0.4s"):
        assert reason in log, reason


@pytest.mark.parametrize("fault, low, high", [
    ("429:7", 7.0, 7.7),
    ("429_ms:2500", 2.5, 2.75),
    ("503:4", 4.0, 4.4),
    ("429_date:" + formatdate(1_800_000_030, usegmt=True), 30.0, 31.0),
])
def test_retry_after_is_honoured(fault_server, fake_sleep, fault, low, high):
    srv = fault_server({"p": [fault]})
    b = backend(srv, fake_sleep)
    b._clock = lambda: 1_800_000_000.0  # the wall clock the HTTP date is measured against
    [r] = b.answer([item("p")])
    assert r.raw_text.startswith("The answer is")
    assert len(fake_sleep.delays) == 1 and low <= fake_sleep.delays[0] <= high


def test_backoff_grows_exponentially_without_retry_after(fault_server, fake_sleep):
    srv = fault_server({"p": ["500"] * 5})
    backend(srv, fake_sleep, retry_base_s=1, retry_max_delay_s=8).answer([item("p")])
    d = fake_sleep.delays
    assert len(d) == 5
    for k, delay in enumerate(d, start=1):
        raw = min(8, 2 ** (k - 1))
        assert raw / 2 <= delay <= raw


def test_budget_exhaustion_is_a_one_line_error(fault_server, fake_sleep):
    srv = fault_server({"doomed": ["500"] * 50})
    with pytest.raises(BackendError) as err:
        backend(srv, fake_sleep, max_retries=3).answer([item("doomed", qid="q-17")])
    msg = str(err.value)
    assert "\n" not in msg
    assert "models.fm" in msg and "'fault-model'" in msg and "q-17" in msg
    assert "gave up after 4 attempts" in msg and "HTTP 500" in msg
    assert srv.requests["doomed"] == 4 and len(fake_sleep.delays) == 3


def test_server_down_is_retried_then_a_clear_error(fake_sleep):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    b = OpenAIBackend("local", {"base_url": f"http://127.0.0.1:{port}/v1", "model": "m", "max_retries": 2},
                      sleep=fake_sleep)
    with pytest.raises(BackendError, match=r"gave up after 3 attempts.*connection error \(ConnectError"):
        b.answer([item("anyone there?")])
    assert len(fake_sleep.delays) == 2


def test_wait_budget_stops_before_a_long_retry_after(fault_server, fake_sleep):
    srv = fault_server({"p": ["429:1000"]})
    with pytest.raises(BackendError, match=r"Retry-After 1000s would exceed max_wait_s=60.*HTTP 429"):
        backend(srv, fake_sleep, max_wait_s=60).answer([item("p")])
    assert srv.requests["p"] == 1 and fake_sleep.delays == []


def test_wait_budget_counts_all_sleeps(fault_server, fake_sleep):
    srv = fault_server({"p": ["429:20"] * 10})
    with pytest.raises(BackendError, match="max_wait_s=50"):
        backend(srv, fake_sleep, max_wait_s=50).answer([item("p")])
    assert len(fake_sleep.delays) == 2 and sum(fake_sleep.delays) <= 50


@pytest.mark.parametrize("fault", ["content_filter", "content_filter_400"])
def test_content_filter_is_a_missed_answer_not_an_error(fault_server, fake_sleep, fault):
    srv = fault_server({"bad": [fault]})
    out = backend(srv, fake_sleep, mode="choice").answer([item("fine 1"), item("bad"), item("fine 2")])
    refused = out[1]
    assert refused.raw_text == "" and refused.choice_index is None and refused.extra["refusal"] is True
    assert srv.requests["bad"] == 1 and fake_sleep.delays == []
    assert out[0].choice_index is not None and out[2].choice_index is not None


def test_no_secret_in_logs_errors_or_responses(fault_server, fake_sleep, monkeypatch, caplog, capsys):
    # a loopback server gets a real key only from a variable named for it
    monkeypatch.setenv("LRW_TEST_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)  # everything: ours, openai's, httpx2's
    srv = fault_server({"a": ["429:1", "500", "drop"], "b": ["non_json"], "denied": ["401"]})
    b = backend(srv, fake_sleep, concurrency=1, api_key_env="LRW_TEST_API_KEY")
    out = b.answer([item("a"), item("b")])
    with pytest.raises(BackendError) as err:
        b.answer([item("denied")])
    assert srv.auth_headers == {f"Bearer {SECRET}"}  # the key was used...
    assert "Incorrect API key provided: ***" in str(err.value)  # ...and redacted from the server's echo
    captured = capsys.readouterr()
    haystack = "\n".join([caplog.text, captured.out, captured.err, str(err.value), repr(err.value), repr(b),
                          json.dumps(b.identity()), repr(out), json.dumps([r.to_dict() for r in out])])
    assert "SECRET" not in haystack
    assert "attempt 1 failed" in caplog.text  # the logs were captured at all


def test_error_in_answer_iter_yields_finished_answers_first(fault_server):
    srv = fault_server({"denied": ["401"]})
    items = [item(f"ok {i}") for i in range(6)] + [item("denied")]
    got = []
    with pytest.raises(BackendError, match="non-retryable.*HTTP 401"):
        for i, r in backend(srv, concurrency=1).answer_iter(items):
            got.append(i)
    assert sorted(got) == list(range(6))
    assert srv.requests["denied"] == 1


def test_closing_answer_iter_cancels_outstanding_requests(fault_server):
    # every first attempt outlives the client's timeout, the retry succeeds
    # (a 0.5 s stall against a 0.2 s timeout: a retry answered at once still fits on a loaded machine)
    srv = fault_server(plan=lambda prompt, attempt: "slow:0.5" if attempt == 0 else "ok")
    items = [item(f"slow {i}") for i in range(200)]
    gen = backend(srv, concurrency=2, retry_base_s=0.01, timeout_s=0.2).answer_iter(items)
    first = [next(gen) for _ in range(2)]
    gen.close()
    n = sum(srv.requests.values())
    time.sleep(0.8)
    # at most the requests already on the wire (one per slot) arrive after close; nothing new is sent
    assert len(first) == 2 and sum(srv.requests.values()) <= n + 2 and n < 20


# -- load ------------------------------------------------------------------------------------------------


# The load property (each prompt answered exactly once, in order, under injected faults at
# concurrency 32) at 2,000 prompts: about 100 faults of every kind and 62 full waves of 32 in flight.
# The full 20,000 is `python benchmarks/bench_openai_concurrency.py fault` (same checks).
N_LOAD = 2_000


@pytest.mark.slow
def test_load_2000_prompts_concurrency_32_each_answered_once(fault_server):
    srv = fault_server(fault_rate=0.05, seed=7)
    items = [item(f"load question {i}: which movie next?") for i in range(N_LOAD)]
    t0 = time.perf_counter()
    out = backend(srv, mode="choice", concurrency=32, retry_base_s=0.001, retry_max_delay_s=0.01).answer(items)
    elapsed = time.perf_counter() - t0
    assert [r.qid for r in out] == [it.qid for it in items]
    assert all(LABELS[r.choice_index] == expected_label(it.prompt) for it, r in zip(items, out))
    assert len(srv.answered) == N_LOAD and set(srv.answered.values()) == {1}
    faults = srv.faults_served()
    assert sum(v for k, v in faults.items() if k != "ok") > 50  # faults were really injected (5% of 2,000)
    assert len({k for k in faults if k != "ok"}) > 1
    assert sum(srv.requests.values()) == N_LOAD + sum(v for k, v in faults.items() if k != "ok")
    print(f"{N_LOAD} prompts, concurrency 32, {sum(faults.values()) - N_LOAD} injected faults: {elapsed:.1f}s")


# -- a real llama.cpp server ---------------------------------------------------------------------------------

MCQ = ("A user watched and liked: Toy Story; Finding Nemo; Monsters, Inc.\n"
       "Which movie will the user most likely watch next?\n"
       "A. {0}\nB. {1}\nC. {2}\nD. {3}\nAnswer with the letter only.")
OPTIONS = [("Up", "Saw", "Heat", "Alien"), ("Seven", "Cars", "Fargo", "Ran"), ("Jaws", "Rocky", "Coco", "Psycho"),
           ("Brave", "Taxi Driver", "Casino", "Scream")]


@pytest.mark.slow
def test_llama_choice_mode_is_valid_and_deterministic(llama_url):
    items = [item(MCQ.format(*opts), qid=f"m{i}") for i, opts in enumerate(OPTIONS)]
    b = OpenAIBackend("smol", {"backend": "openai", "model": "smollm2", "base_url": llama_url, "mode": "choice",
                               "concurrency": 2})
    first, second = b.answer(items), b.answer(items)
    for r1, r2 in zip(first, second):
        assert r1.choice_index is not None and 0 <= r1.choice_index < 4
        assert r1.choice_index == r2.choice_index and r1.raw_text == r2.raw_text
        assert r1.label_logprobs == r2.label_logprobs  # bit-identical: no prompt cache, one slot
        assert r1.tokens_in > 50 and r1.tokens_out == 1
        assert r1.served_model == "smollm2"


@pytest.mark.slow
def test_llama_generate_mode_is_deterministic(llama_url):
    items = [item(MCQ.format(*opts), qid=f"g{i}") for i, opts in enumerate(OPTIONS[:2])]
    b = OpenAIBackend("smol", {"backend": "openai", "model": "smollm2", "base_url": llama_url, "max_tokens": 8,
                               "concurrency": 2, "system": "You are a movie recommender."})
    first, second = b.answer(items), b.answer(items)
    for r1, r2 in zip(first, second):
        assert r1.raw_text and r1.raw_text == r2.raw_text
        assert r1.choice_index is None and 0 < r1.tokens_out <= 8 and r1.tokens_in > 50


def test_a_loopback_server_is_not_sent_the_openai_key(fault_server, fake_sleep, monkeypatch):
    """A local server (managed, or base_url on loopback) gets a placeholder, not the
    real OPENAI_API_KEY, unless api_key_env names a variable of its own."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    srv = fault_server({"a": []})
    backend(srv, fake_sleep).answer([item("a")])
    assert srv.auth_headers == {"Bearer EMPTY"}
