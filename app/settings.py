"""Service settings (pydantic-settings), read from ``GPUCOST_*`` environment variables.

The defaults make ``make run`` work with no configuration: an SQLite file and the built-in
catalog.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import (
    AnyHttpUrl,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.costing import defaults

# The loopback names of this machine, with and without a port: what /mcp answers by default.
MCP_LOCAL_HOSTS = (
    "127.0.0.1",
    "127.0.0.1:*",
    "localhost",
    "localhost:*",
    "[::1]",
    "[::1]:*",
)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUCOST_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./gpucost.db",
        description="SQLAlchemy URL; `postgresql+psycopg://...` for PostgreSQL.",
    )
    default_electricity_price_usd_per_kwh: float = Field(
        default=defaults.ELECTRICITY_PRICE.number,
        gt=0,
        le=10,
        description="Electricity price when a request gives neither price nor region, USD/kWh. "
        + defaults.ELECTRICITY_PRICE.describe(),
    )
    default_region: str = Field(
        default=str(defaults.REGION.value),
        description="Region whose carbon intensity is used when a request names none. "
        + defaults.REGION.describe(),
    )
    snapshot_dir: Path | None = Field(
        default=None,
        description="Where `gpucost ask` keeps catalog snapshots of an SQLite database (one "
        "file per database, rewritten when its catalog revision, the day or the code "
        "changes; see app/catalog/snapshot.py). Default `$XDG_CACHE_HOME/gpucost`, else "
        "`~/.cache/gpucost`. Only this user should be able to write it.",
    )
    machines_file: Path | None = Field(
        default=None,
        description="A JSON file holding the lab's machines by Slurm partition, "
        '`{"machines": [{"partition": "a100", "cluster": "hpc", "machine": {"gpu": '
        '"a100-80gb", "gpu_count": 8, "total_price_usd": 120000}}]}` (the `machines` of '
        "`POST /v1/chargeback`), used when a chargeback request sends none. Read when first "
        "needed and again when it changes; checked at start-up (an invalid file stops it).",
    )
    cluster_time_zone: str = Field(
        default="UTC",
        min_length=1,
        description="IANA time zone a chargeback reads a usage export's times in when the "
        "request names none (sacct prints the cluster's local time). Default UTC.",
    )
    slack_signing_secret: SecretStr | None = Field(
        default=None,
        description="Signing secret of the Slack app (Basic Information > App Credentials); "
        "`POST /slack/commands` answers 401 until it is set.",
    )
    slack_bot_token: SecretStr | None = Field(
        default=None,
        description="Bot token of the Slack app (`xoxb-...`, OAuth & Permissions; scopes "
        "`app_mentions:read` and `chat:write`): with it, `POST /slack/events` answers "
        "`@gpucost` mentions in their thread, and a follow-up mention there changes the "
        "thread's question. Unset: mentions are acknowledged and not answered (logged).",
    )
    slack_max_age_s: int = Field(
        default=300,
        ge=1,
        le=3600,
        description="Oldest Slack request timestamp accepted, s (Slack's guidance: 5 minutes).",
    )
    slack_deadline_s: float = Field(
        default=2.5,
        gt=0,
        le=3,
        description="Answer time after which the Slack reply says 'working on it' and the "
        "answer follows via `response_url` (Slack's limit is 3 s).",
    )
    public_base_url: AnyHttpUrl | None = Field(
        default=None,
        description="Public address of this service, e.g. `https://gpucost.example.org`. When "
        "set, Slack answers to break-even and run-cost questions show their chart "
        "(`GET /v1/charts/query`); Slack fetches it from there.",
    )
    price_max_age_days: int = Field(
        default=90,
        ge=1,
        le=36500,
        description="Answers warn about any catalog price older than this many days. Default: "
        "the budgeting users' requirement (gpucost issue 5, 2026-11-21: 'warns when one is "
        "older than a configurable limit (default 90 days)'); on-demand list prices change "
        "about quarterly.",
    )
    log_format: str = Field(
        default="text",
        pattern="^(text|json)$",
        description="`json`: one JSON object per log line (production); `text`: readable.",
    )
    log_level: str = Field(
        default="INFO",
        pattern="^(DEBUG|INFO|WARNING|ERROR)$",
        description="Lowest level logged; INFO includes one access line per request.",
    )
    cors_origins: list[str] = Field(
        default_factory=list,
        description="Origins allowed to call the API from a browser, e.g. "
        '`["https://dashboard.example.org"]` (JSON list); empty: no CORS headers.',
    )
    forwarded_allow_ips: str = Field(
        default="127.0.0.1",
        max_length=4000,
        description="The trusted proxies: peers whose `X-Forwarded-For`/`-Proto` are believed "
        "(client addresses for rate limits) and, with `sso_user_header` set, whose user and "
        "group headers are (comma-separated addresses or CIDR networks, or `*`; the same "
        "value `gpucost serve --forwarded-allow-ips` takes). Default: loopback only.",
    )
    sso_user_header: str | None = Field(
        default=None,
        max_length=100,
        pattern=r"^[A-Za-z0-9-]+$",
        description="Header naming the signed-in user, set by an authenticating proxy in "
        "front of gpucost (oauth2-proxy: `X-Forwarded-User` or `X-Auth-Request-User`); read "
        "only from a trusted proxy's connection. None (default): single sign-on off.",
    )
    sso_groups_header: str = Field(
        default="X-Forwarded-Groups",
        max_length=100,
        pattern=r"^[A-Za-z0-9-]+$",
        description="Header with the user's identity-provider groups, comma-separated "
        "(oauth2-proxy: `X-Forwarded-Groups` or `X-Auth-Request-Groups`).",
    )
    sso_lab_groups: dict[str, str] = Field(
        default_factory=dict,
        description='Identity-provider group -> lab, e.g. `{"cn=ml-lab,ou=groups": '
        '"ml-lab"}` (JSON); a user\'s labs are their groups found here. Empty (default): '
        "every group is a lab of the same name.",
    )
    mcp_allowed_hosts: list[str] = Field(
        default_factory=lambda: list(MCP_LOCAL_HOSTS),
        description="`Host` header values `/mcp` answers (JSON list; `name:*` allows any "
        "port), against DNS rebinding as the MCP specification's transport section asks; "
        "another host is refused with 421. Default: loopback only (`127.0.0.1`, `localhost`, "
        "`[::1]`, any port); a deployment lists its public host name.",
    )
    mcp_allowed_origins: list[str] = Field(
        default_factory=lambda: [f"http://{h}" for h in MCP_LOCAL_HOSTS if h.endswith(":*")],
        description="`Origin` header values `/mcp` accepts from browsers (JSON list; a request "
        "without `Origin` is not a browser's cross-site call and passes); another is refused "
        "with 403. Default: loopback pages only.",
    )
    db_pool_size: int = Field(
        default=5,
        ge=1,
        le=100,
        description="PostgreSQL connections kept open per worker. Default: SQLAlchemy's own "
        "QueuePool default (pool_size=5, SQLAlchemy 2.x documentation, 2026-11-22).",
    )
    db_max_overflow: int = Field(
        default=5,
        ge=0,
        le=100,
        description="Extra PostgreSQL connections per worker at peak. Default 5 (SQLAlchemy's is "
        "10): 5 replicas x 2 workers x (5 + 5) = 100 = PostgreSQL 15's default "
        "max_connections (PostgreSQL 15 documentation, 'Connections and Authentication').",
    )
    db_pool_timeout_s: float = Field(
        default=2.0,
        gt=0,
        le=60,
        description="Wait for a free pooled connection before answering 503, s. Default: the "
        "same bound as the connect timeout, so a request that needs the database is answered "
        "within about 2 s whatever went wrong.",
    )
    db_connect_timeout_s: int = Field(
        default=2,
        ge=1,
        le=60,
        description="PostgreSQL connect timeout, s: with the database down, requests that "
        "need it fail within about this long (503) instead of hanging. Default 2 s: well "
        "inside issue 7's 'recover within 5 s of its restart' (a refused connection fails at "
        "once: 10 ms measured by the fault test, 2026-11-22).",
    )
    catalog_poll_interval_s: float = Field(
        default=0.5,
        ge=0,
        le=60,
        description="How often each worker's background poller asks the database whether the "
        "catalog changed, s (0: never; a write in the same worker is still seen at once). "
        "Requests never query the catalog: they read the in-memory view, and an admin write "
        "is seen by every worker within this interval plus the time to read the new revision. "
        "Default 0.5 s: one primary-key lookup per worker per half second, and a change is "
        "everywhere within 1 s (issue 16's requirement).",
    )
    freeze_heap: bool = Field(
        default=True,
        description="Once a worker has started, move what is alive then (the catalog view, the "
        "modules: ~150,000 objects) out of the cyclic garbage collector's reach "
        "(gc.freeze): each full collection scanned them, holding the interpreter lock for "
        "0.16 s (2 CPUs, idle, 2026-11-27), which every request waited behind. Off only where "
        "one process starts and stops many services (the in-process test suite).",
    )
    max_request_body_bytes: int = Field(
        default=64 * 1024,
        description="Request bodies larger than this get 413, bytes. Default 64 KiB: 7x the "
        "largest valid calculation body we could build (a 50-option run-cost request with "
        "full desktop specs, 8.8 kB, measured 2026-11-22).",
    )
    render_max_running: int = Field(
        default=2,
        ge=1,
        le=64,
        description="Charts, reports, sweeps, cash flows and fleet plans computed at once per "
        "worker, and its drawing processes. Default 2: the 2 cores of the machine gpucost is "
        "measured on (2026-11-23); set it to the cores a worker may use.",
    )
    render_max_waiting: int = Field(
        default=8,
        ge=0,
        le=1000,
        description="Such requests waiting for a turn per worker; beyond them, 503 with "
        "Retry-After. Default 8: four waiting per running slot, so a wait stays within a few "
        "seconds of the ~0.5 s each takes at most.",
    )
    render_processes: bool = Field(
        default=True,
        description="Draw charts in `render_max_running` separate processes (app/render/draw_pool.py), "
        "so drawing never holds the worker's GIL: under a chart flood /healthz kept a p99 of "
        "~140 ms with drawing in threads (make bench-flood, 2026-11-23). False: draw in the "
        "worker's threads (one process, less memory).",
    )
    render_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description="Longest wait for one chart to be drawn, s; past it, 503 with Retry-After. "
        "Default 10 s: 30x the slowest capped chart (0.34 s of CPU, the largest sweep, "
        "2026-11-23), so only a stuck or starved process hits it.",
    )
    max_scenarios_per_key: int = Field(
        default=1000,
        ge=1,
        description="Scenarios one API key may hold; past it, saving another is a 429. Default: "
        "the quota gpucost issue 21 (2026-11-23) asks for, 'e.g. 1,000 scenarios'.",
    )
    max_header_bytes: int = Field(
        default=16 * 1024,
        ge=1024,
        le=1024 * 1024,
        description="Largest request head (request line and headers together), bytes; above "
        "it, 431 problem+json before any work (`gpucost serve` stops reading at this size; "
        "the edge checks it again for any other server). Default 16 KiB: Node.js's default "
        "`--max-http-header-size` (16 KiB since Node 13.13; nodejs.org/api/cli.html, "
        "2026-11-24); our own requests' heads are under 1 KiB (an API key is 60 characters).",
    )
    rate_limit_max_entries: int = Field(
        default=50_000,
        ge=100,
        le=10_000_000,
        description="Most rate-limit counters one worker keeps in memory (two per caller and "
        "budget: the sliding window's current and previous windows), and half as many callers; "
        "while the table is full, callers not counted within the window are counted together "
        "as one caller (`address:overflow`), callers already counted keep their own budget, "
        "so a flood of new addresses can neither grow a worker's memory nor share a known "
        "caller's budget. IPv6 callers are counted per /64. Default 50,000: ~25 MB when full "
        "(~500 bytes a counter with its caller, IPv6 /64s; `scripts/bench_flood.py "
        "--limiter-memory`, 2026-11-26), room for ~25,000 callers within a minute.",
    )
    request_head_timeout_s: float = Field(
        default=20.0,
        ge=0.1,
        le=600,
        description="Seconds `gpucost serve` waits for a request's head (request line and "
        "headers), from the connection's start or a kept-alive request's first byte; past "
        "it, 408 and the connection closed (slow or silent clients hold no connection). "
        "Default 20 s: Apache httpd mod_reqtimeout's default first header timeout "
        "(`RequestReadTimeout header=20-40,MinRate=500`).",
    )
    max_import_bytes: int = Field(
        default=10 * 1024 * 1024,
        description="Largest body `POST /v1/admin/imports` and `POST /v1/chargeback` take, "
        "bytes (the largest SkyPilot file we ship is 75 kB; AWS's full catalog is a few MB; "
        "a month of sacct lines is ~110 bytes a job: 10 MB holds ~90,000 jobs).",
    )

    rate_limits_enabled: bool = Field(
        default=True,
        description="Limit requests per caller (see the `rate_limit_*` settings). Off only for "
        "a private deployment or a load test.",
    )
    rate_limit_anonymous: str = Field(
        default="300/minute",
        description="Requests per client address without a valid API key, in the `limits` "
        "notation (`N/second|minute|hour|day`, several joined by `;`). Default 300 a minute: a "
        "calculation costs under 1 ms of CPU here (scripts/bench.py: 1,336 break-evens a second "
        "on one worker, 2026-11-23), so a caller "
        "at the limit uses under 1 % of a core.",
    )
    rate_limit_anonymous_heavy: str = Field(
        default="20/minute",
        description="Of those, charts, reports, plans, cash flows, compares and sweeps (at most "
        "~0.5 s of CPU each, issue 21's cap). Default 20 a minute: at most ~10 s of CPU a "
        "minute, a sixth of a core, per address.",
    )
    rate_limit_key: str = Field(
        default="3000/minute",
        description="Requests per valid API key (whatever the address). Default 10x the "
        "anonymous limit: a key is a known lab tool that may batch.",
    )
    rate_limit_key_heavy: str = Field(
        default="60/minute",
        description="Of those, the heavy ones (as above). Default 60 a minute: at most ~30 s "
        "of CPU a minute, half a core, per key.",
    )
    redis_url: str | None = Field(
        default=None,
        description="`redis://host:port/db`: keep the rate-limit counters in Redis, shared by "
        "every worker and instance. Default: in each worker's memory (a limit then holds per "
        "worker).",
    )

    refresh_source: str = Field(
        default="https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master",
        description="Where `gpucost catalog refresh` reads the SkyPilot catalog: a URL or a "
        "local directory with the repository's layout (`catalogs/<version>/<cloud>/vms.csv`). "
        "Default: the skypilot-org/skypilot-catalog repository's raw files.",
    )
    refresh_aws_regions: str = Field(
        default="us-west-2,us-east-1,us-east-2",
        pattern=r"^[a-z0-9-]+(,[a-z0-9-]+)*$",
        description="AWS regions whose bulk EC2 price file `gpucost catalog refresh --api aws` "
        "streams (comma-separated; each file is hundreds of MB). Default: the three regions "
        "with the most GPU instance types in the shipped SkyPilot AWS file (16, 14 and 13 of "
        "them; v8, commit 00148f2a).",
    )
    runpod_api_key: SecretStr | None = Field(
        default=None,
        description="A RunPod API key (read access): `gpucost catalog refresh --api runpod` "
        "reads RunPod's GraphQL prices with it. Unset (the default): RunPod's live source is "
        "off; its prices come from SkyPilot's catalog.",
    )
    refresh_interval_s: int = Field(
        default=7 * 3600,
        ge=60,
        le=30 * 86400,
        description="Seconds between refreshes of `gpucost catalog refresh --loop` (the "
        "compose `refresh` service). Default 7 h: SkyPilot re-fetches its AWS, GCP and Lambda "
        "catalogs every 7 hours (skypilot-catalog README, read 2026-11-24); more often finds "
        "nothing new.",
    )
    refresh_timeout_s: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="Per-request timeout of a refresh download, s. Default 30 s: the largest "
        "file (AWS, ~10 MB) arrives in seconds on any lab link.",
    )
    refresh_attempts: int = Field(
        default=3,
        ge=1,
        le=10,
        description="Tries per file on a network error, 429 or 5xx (exponential back-off from "
        "1 s). Default 3: gpucost's rule, a transient GitHub error rarely lasts two back-offs.",
    )
    refresh_min_offers_ratio: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Integrity gate: a provider's new file needs at least this share of its "
        "previous offer count. Default 0.5 (gpucost's rule): a provider retiring half its "
        "GPU instances at once has not happened in SkyPilot's history; a truncated file has.",
    )
    refresh_max_rejected_share: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="Integrity gate: at most this share of a file's rows may be malformed. "
        "Default 0.05 (gpucost's rule).",
    )
    refresh_max_price_change: float = Field(
        default=0.5,
        gt=0,
        le=100,
        description="Integrity gate: a price moving by more than this fraction is a big move "
        "(0.5: +50 % or halved). Default 0.5 (gpucost's rule; RunPod's A100 80GB fell 30 % "
        "between SkyPilot v6 and v8).",
    )
    refresh_max_moved_share: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="Integrity gate: at most this share of the offers in both versions may make "
        "a big move. Default 0.25 (gpucost's rule).",
    )
    refresh_max_median_change: float = Field(
        default=0.3,
        ge=0,
        le=100,
        description="Integrity gate: the median price move of the offers in both versions. "
        "Default 0.3 (gpucost's rule): a unit error (cents for dollars) moves every price.",
    )

    refresh_max_price_factor: float = Field(
        default=10.0,
        ge=1.5,
        le=1000,
        description="Integrity gate: no price may move, nor an offer new to the catalog stand, "
        "more than this factor from its previous price or from the catalog's median price per "
        "GPU-hour for the same GPU and pricing model. Default 10: twice the widest spread in "
        "the shipped catalog (V100 16GB spot: 4.97x from its median, 2026-11-26); a cents-for-"
        "dollars file is 100x off.",
    )
    refresh_max_added_ratio: float = Field(
        default=1.0,
        ge=0,
        le=100,
        description="Integrity gate: a file may add at most `max(refresh_min_added, this x the "
        "provider's previous offer count)` offers new to the catalog. Default 1.0 (gpucost's "
        "rule: a provider may double its offers in one file, not flood the catalog: 60,000 rows "
        "once took a worker from 145 to 676 MB).",
    )
    refresh_min_added: int = Field(
        default=1_000,
        ge=0,
        le=1_000_000,
        description="Integrity gate: new offers one file may always add (a provider new to the "
        "catalog). Default 1,000: above RunPod's 646, the most offers any provider has in the "
        "shipped catalog (2026-11-26).",
    )
    refresh_max_bytes: int = Field(
        default=16 * 1024 * 1024,
        ge=1024,
        le=1024 * 1024 * 1024,
        description="Largest catalog file a refresh reads, bytes (read streamed and cut off "
        "there; only regular files from a local mirror). Default 16 MiB: 4x SkyPilot's largest "
        "v8 file (AWS vms.csv, 3.65 MB, skypilot-catalog commit 00148f2, 2026-11-26).",
    )

    @field_validator(
        "rate_limit_anonymous",
        "rate_limit_anonymous_heavy",
        "rate_limit_key",
        "rate_limit_key_heavy",
    )
    @classmethod
    def _limits_notation(cls, value: str, info: ValidationInfo) -> str:
        """``value`` in the `limits` notation (ValueError for anything but `N/unit` items); a
        default is not parsed again (tests/unit/test_local_ask.py parses them), sparing a
        command that never limits a request the ~0.1 s import of `limits`."""
        if info.field_name and value == cls.model_fields[info.field_name].default:
            return value
        from limits import parse_many

        parse_many(value)
        return value

    @model_validator(mode="after")
    def _sso_needs_named_proxies(self) -> Settings:
        """Single sign-on believes the user header from trusted proxies only: with every
        peer trusted (`*`), anyone could sign in as anyone, so that pair stops the start."""
        trusted = {p.strip() for p in self.forwarded_allow_ips.split(",")}
        if self.sso_user_header and "*" in trusted:
            raise ValueError(
                "GPUCOST_SSO_USER_HEADER is set but GPUCOST_FORWARDED_ALLOW_IPS trusts every "
                "peer (*): name the authenticating proxy's addresses"
            )
        return self


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings (cached; tests clear the cache to override)."""
    return Settings()
