"""Fetching an image from a URL found in data: the URL is untrusted.

A poster URL comes from dataset metadata that anyone may have written. It is fetched only over
http(s), only from a public address (the host is resolved here and the connection goes to the
checked address, so a DNS answer cannot change between the check and the connect), every redirect
is checked again, the body is capped while it streams, and the bytes must decode as an image
before anyone stores or sends them. Anything else raises `Refused` with a short reason code.

urllib3 (already installed with requests and huggingface_hub) does the HTTP; the address policy,
the pinned connect and the manual redirects are written here because no installed library offers
them (urllib and requests follow redirects and resolve names on their own).
"""

from __future__ import annotations

import io
import ipaddress
import socket
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

# Formats a vision model takes; Pillow's other plugins (EPS runs Ghostscript) are never opened.
IMAGE_FORMATS = ("JPEG", "PNG", "GIF", "WEBP", "BMP")
EXTENSIONS = {"JPEG": ".jpg", "PNG": ".png", "GIF": ".gif", "WEBP": ".webp", "BMP": ".bmp"}
REDIRECTS = {301, 302, 303, 307, 308}


class Refused(Exception):
    """A URL or body that is not fetched or not kept; `reason` is a short code for the report."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


class Unreachable(Refused):
    """The host could not be reached at all (no network, no DNS, refused, timed out)."""

    def __init__(self, detail: str):
        super().__init__("unreachable", detail)


@dataclass(frozen=True)
class FetchPolicy:
    max_bytes: int
    timeout_s: float = 30.0  # the whole fetch of one image, redirects included
    max_redirects: int = 5
    # Exact addresses exempt from the address check: for tests that serve images on 127.0.0.1.
    # A parameter only, never a config key.
    trusted_addresses: frozenset[str] = frozenset()


def public_form(url: str) -> str:
    """The URL without user info, query or fragment: what the report and logs show."""
    try:
        p = urlsplit(url)
        host = p.hostname or ""
        port = f":{p.port}" if p.port else ""
    except ValueError:
        return "<unparsable URL>"
    return f"{p.scheme}://{host}{port}{p.path}"[:200]


def address_refusal(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why an address is not a public host, or None when it is."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return address_refusal(ip.ipv4_mapped)
    # most specific first: Python counts loopback, link-local and 0.0.0.0 as "private" too
    for kind in ("loopback", "link_local", "unspecified", "multicast", "reserved", "private"):
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    if not ip.is_global:  # shared (100.64/10), documentation, benchmarking ranges
        return "not global"
    return None


def resolve(host: str, port: int, policy: FetchPolicy) -> str:
    """The one address to connect to; refused when any address the name resolves to is not public
    (a name that resolves to both a public and an internal address is not trusted)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Unreachable(f"{host}: cannot resolve ({exc})") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    for a in addresses:
        if a in policy.trusted_addresses:
            continue
        why = address_refusal(ipaddress.ip_address(a.split("%")[0]))
        if why:
            raise Refused("address", f"{host} resolves to {a} ({why})")
    return addresses[0]


def _pool(scheme: str, host: str, ip: str, port: int, deadline: float):
    import urllib3

    left = max(0.1, deadline - time.monotonic())
    timeout = urllib3.Timeout(connect=min(10.0, left), read=left)
    if scheme == "https":
        # connect to the checked address; TLS still verifies the certificate for the host name
        return urllib3.HTTPSConnectionPool(ip, port, timeout=timeout, retries=False, cert_reqs="CERT_REQUIRED",
                                           server_hostname=host, assert_hostname=host)
    return urllib3.HTTPConnectionPool(ip, port, timeout=timeout, retries=False)


def _get(url: str, policy: FetchPolicy, deadline: float) -> tuple[int, str | None, bytes]:
    """(status, Location header, body) of one GET, without following redirects."""
    import urllib3

    try:
        p = urlsplit(url)
    except ValueError as exc:
        raise Refused("scheme", f"unparsable URL ({exc})") from None
    if p.scheme not in ("http", "https"):
        raise Refused("scheme", f"{p.scheme or 'no'} scheme; only http(s) URLs are fetched")
    if p.username or p.password:
        raise Refused("credentials", "user info in the URL")
    if not p.hostname:
        raise Refused("scheme", "no host")
    try:
        port = p.port or (443 if p.scheme == "https" else 80)
    except ValueError as exc:
        raise Refused("scheme", str(exc)) from None
    ip = resolve(p.hostname, port, policy)
    host = f"[{p.hostname}]" if ":" in p.hostname else p.hostname
    host_header = host if p.port is None else f"{host}:{p.port}"
    target = (p.path or "/") + (f"?{p.query}" if p.query else "")
    pool = _pool(p.scheme, p.hostname, ip, port, deadline)
    try:
        resp = pool.urlopen("GET", target, headers={"Host": host_header, "Accept": "image/*",
                                                     "Accept-Encoding": "identity", "User-Agent": "lrworld"},
                            redirect=False, retries=False, preload_content=False, decode_content=False)
    except urllib3.exceptions.SSLError as exc:
        raise Refused("tls", f"{p.hostname}: {exc}") from None
    except urllib3.exceptions.HTTPError as exc:
        raise Unreachable(f"{p.hostname}: {type(exc).__name__}: {exc}") from None
    try:
        if resp.status in REDIRECTS:
            return resp.status, resp.headers.get("Location"), b""
        if resp.status != 200:
            raise Refused("http_status", f"HTTP {resp.status}")
        declared = resp.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > policy.max_bytes:
            raise Refused("too_large", f"Content-Length {declared} > max_image_bytes={policy.max_bytes}")
        body = bytearray()
        try:
            # read1: what has arrived (up to 64 KiB), so the deadline is checked while a slow
            # server drips; read(n) would wait for all n bytes
            while chunk := resp.read1(1 << 16, decode_content=False):
                body += chunk
                if len(body) > policy.max_bytes:
                    raise Refused("too_large", f"body over max_image_bytes={policy.max_bytes}")
                if time.monotonic() > deadline:
                    raise Refused("too_slow", f"not complete within {policy.timeout_s:g}s")
        except urllib3.exceptions.HTTPError as exc:
            raise Unreachable(f"{p.hostname}: {type(exc).__name__}: {exc}") from None
        return resp.status, None, bytes(body)
    finally:
        resp.release_conn()
        pool.close()


def check_image(data: bytes) -> str:
    """The image format of `data`, which must decode whole (verify, then load); else Refused."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=IMAGE_FORMATS) as im:
                im.verify()  # structure and checksums
            with Image.open(io.BytesIO(data), formats=IMAGE_FORMATS) as im:
                im.load()  # verify does not decode the pixels; load does
                return im.format
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise Refused("not_image", f"decompression bomb ({exc})") from None
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types on bad bytes
        raise Refused("not_image", f"does not decode as {'/'.join(IMAGE_FORMATS)} ({type(exc).__name__})") from None


def check_image_file(path: str | Path, max_bytes: int | None = None) -> str:
    path = Path(path)
    if max_bytes is not None and path.stat().st_size > max_bytes:
        raise Refused("too_large", f"{path.stat().st_size} bytes > max_image_bytes={max_bytes}")
    return check_image(path.read_bytes())


def fetch_image(url: str, policy: FetchPolicy) -> tuple[bytes, str]:
    """(body, image format) of an image URL, following at most `max_redirects` checked redirects."""
    # one deadline for the whole fetch: a server that drips a byte at a time cannot hold the job
    deadline = time.monotonic() + policy.timeout_s
    for hop in range(policy.max_redirects + 1):
        try:
            status, location, body = _get(url, policy, deadline)
        except Refused as exc:
            if hop:
                exc.args = (f"{exc} (after a redirect to {public_form(url)})",)
            raise
        if location is None and status in REDIRECTS:
            raise Refused("http_status", f"HTTP {status} without Location")
        if location is None:
            return body, check_image(body)
        url = urljoin(url, location)
    raise Refused("redirects", f"more than {policy.max_redirects} redirects")
