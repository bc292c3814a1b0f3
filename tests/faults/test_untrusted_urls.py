"""Image URLs from dataset metadata are untrusted: only http(s), only public
addresses (checked again on every redirect), a size cap while streaming, and the bytes must
decode as an image before they are stored or sent. Each refusal is a counted skip with a reason.

A guard blocks every connect outside the loopback range, so a wrong refusal shows as a recorded
attempt, never as traffic."""

import pandas as pd
import pytest

from lrworld.captions import images
from lrworld.captions.fetch import FetchPolicy, Refused, fetch_image
from tests.support import netguard
from tests.support.image_server import ImageServer

TRUST_LOCAL = FetchPolicy(max_bytes=1_000_000, timeout_s=10, trusted_addresses=frozenset({"127.0.0.1"}))


@pytest.fixture(autouse=True)
def guard():
    attempts = netguard.install()
    attempts.clear()
    yield attempts
    netguard.uninstall()


@pytest.fixture()
def srv():
    with ImageServer() as s:
        yield s


def refusal(url, policy=TRUST_LOCAL) -> Refused:
    with pytest.raises(Refused) as info:
        fetch_image(url, policy)
    return info.value


def test_a_real_image_from_a_trusted_test_address_is_fetched(srv):
    body, fmt = fetch_image(srv.url("/poster.png"), TRUST_LOCAL)
    assert body == srv.png and fmt == "PNG"
    # a redirect on the same (trusted) host is followed
    assert fetch_image(srv.url("/to/poster.jpg"), TRUST_LOCAL) == (srv.png, "PNG")


def test_file_urls_are_refused(tmp_path):
    secret = tmp_path / "environ"
    secret.write_text("OPENAI_API_KEY=sk-secret")
    exc = refusal(secret.as_uri())
    assert exc.reason == "scheme"
    assert refusal("file:///proc/self/environ").reason == "scheme"
    assert refusal("ftp://127.0.0.1/x.png").reason == "scheme"


def test_loopback_is_refused_without_the_test_switch(srv):
    exc = refusal(srv.url("/poster.png"), FetchPolicy(max_bytes=1_000_000))
    assert exc.reason == "address" and "loopback" in str(exc)
    assert srv.hits["/poster.png"] == 0
    assert refusal(f"http://localhost:{srv.port}/poster.png", FetchPolicy(max_bytes=10)).reason == "address"
    assert refusal(f"http://[::ffff:127.0.0.1]:{srv.port}/poster.png", FetchPolicy(max_bytes=10)).reason == "address"


@pytest.mark.parametrize("host, why", [("169.254.169.254", "link-local"), ("10.1.2.3", "private"),
                                       ("192.168.0.10", "private"), ("0.0.0.0", "unspecified"),
                                       ("224.0.0.1", "multicast"), ("[fe80::1]", "link-local"),
                                       ("100.64.0.1", "not global")])
def test_internal_addresses_are_refused_before_any_connect(host, why, guard):
    exc = refusal(f"http://{host}/latest/meta-data/iam/security-credentials/")
    assert exc.reason == "address" and why in str(exc)
    assert guard == []  # nothing tried to connect


def test_a_redirect_to_loopback_is_checked_again(srv, guard):
    exc = refusal(srv.url(f"/redirect?to=http://127.0.0.2:{srv.port}/poster.png"))
    assert exc.reason == "address" and "127.0.0.2" in str(exc) and "redirect" in str(exc)
    exc = refusal(srv.url("/redirect?to=http://169.254.169.254/latest/meta-data/"))
    assert exc.reason == "address" and guard == []
    assert refusal(srv.url("/redirect?to=file:///proc/self/environ")).reason == "scheme"


def test_a_body_over_the_cap_is_not_read(srv):
    assert refusal(srv.url("/big")).reason == "too_large"
    assert srv.streamed["/big"] < 64 * 1024 ** 2  # refused on its Content-Length
    exc = refusal(srv.url("/endless"))
    assert exc.reason == "too_large"
    assert srv.streamed["/endless"] < 64 * 1024 ** 2  # the stream stopped near the 1 MB cap, not at 2 GB


def test_a_server_that_drips_bytes_cannot_hold_the_job(srv):
    import time

    t0 = time.monotonic()
    exc = refusal(srv.url("/drip"), FetchPolicy(max_bytes=1_000_000, timeout_s=1.0,
                                                 trusted_addresses=frozenset({"127.0.0.1"})))
    assert exc.reason in ("too_slow", "unreachable") and time.monotonic() - t0 < 30  # the drip would take 2,000 s


def test_html_served_as_jpeg_is_not_an_image(srv):
    assert refusal(srv.url("/html")).reason == "not_image"


def test_refusals_are_counted_skips_with_reasons_and_nothing_is_stored(tmp_path, srv):
    items = pd.DataFrame({"item_id": ["1", "2", "3", "4", "5", "6"],
                          "poster_url": [srv.url("/poster.png"), "file:///proc/self/environ", srv.url("/html"),
                                         "http://169.254.169.254/", srv.url("/endless"), None]})
    found, report = images.collect(items, None, tmp_path / "dl", TRUST_LOCAL)
    assert sorted(found) == ["1"] and found["1"].read_bytes() == srv.png and found["1"].suffix == ".png"
    assert report["skipped"] == {"address": 1, "not_image": 1, "scheme": 1, "too_large": 1}
    assert (report["downloaded"], report["no_image"], report["skipped_total"]) == (1, 1, 4)
    assert [p.name for p in (tmp_path / "dl").iterdir()] == [found["1"].name]
    assert any("169.254.169.254" in f and "link-local" in f for f in report["failures"])


def test_a_damaged_cached_download_is_fetched_again_not_sent(tmp_path, srv):
    items = pd.DataFrame({"item_id": ["1"], "poster_url": [srv.url("/poster.png")]})
    found, _ = images.collect(items, None, tmp_path / "dl", TRUST_LOCAL)
    found["1"].write_text("OPENAI_API_KEY=sk-planted")  # e.g. written by an older, trusting version
    again, report = images.collect(items, None, tmp_path / "dl", TRUST_LOCAL)
    assert report["downloaded"] == 1 and again["1"].read_bytes() == srv.png and srv.hits["/poster.png"] == 2
