"""One ``Settings`` for the whole distribution: every ``LEXLOGIC_*`` variable, read once at the edge.

The CLI, the API and the workers build it (``Settings()`` reads the environment; ``--rules DIR`` and
``serve --db URL`` make a copy with ``model_copy(update=...)``) and pass it down with the rule packs, the
way OpenFisca passes its tax-benefit system: nothing below the edge reads ``os.environ`` for these, and
nothing ever writes it (``tests/core/test_explicit_context.py`` scans for both). ``lexlogic --help``, the
``--help`` of the commands they apply to and ``docs/deployment.md`` list the variables; this class is their
single definition (``Settings.describe()`` prints them). A library call given no settings uses
``Settings.defaults()``: the values below, the environment not read.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

SHIPPED_RULES = Path(__file__).resolve().parents[1] / "rules"


class Settings(BaseSettings):
    """Where things are and how a run behaves; each field is the variable ``LEXLOGIC_<FIELD>``.

    pydantic-settings' ``BaseSettings`` reads them (its import costs ~40–70 ms of a cold command: kept, the
    house library for settings; issue 33's cold-start note says why)."""

    model_config = SettingsConfigDict(env_prefix="LEXLOGIC_", extra="ignore", frozen=True)

    home: Path = Field(Path(".lexlogic"), description="runs, reports, caches and the SQLite database live here")
    rules_dir: Path = Field(SHIPPED_RULES, description="the folder of rule packs (`--rules DIR` for one call)")
    default_pack: str | None = Field(None, description="the pack of a case that names none (else packs.yaml)")
    database_url: str | None = Field(None, description="SQLAlchemy URL (PostgreSQL); None: SQLite under home")
    broker_url: str | None = Field(None, description="Celery broker (Redis or RabbitMQ); None: in-process runs")
    queue_prefix: str = Field("lexlogic", description="prefix of the Celery queues (isolates deployments)")
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint; None: offline")
    llm_model: str = Field("default", description="the model name sent to the endpoint")
    llm_api_key: str = Field("", description="the endpoint's API key")
    api_data: Path | None = Field(None, description="uploaded documents of the API; None: home/api")
    run_wait_seconds: float = Field(600.0, gt=0, description="how long `POST …/run?wait=` may block")
    step_delay: float = Field(0.0, ge=0, description="pause after each persisted step (tests, demos)")
    no_cache: bool = Field(
        False, description="bypass the caches: documents/OCR, compiled NLP patterns, compiled rule packs"
    )
    nlp_warmup: bool = Field(True, description="load spaCy in the background at start")
    dynamic_require_approval: bool = Field(True, description="dynamic rules need a human approval")
    # runs, leases and the workers (engine/store/cases, engine/jobs/tasks)
    run_lease_seconds: float = Field(30.0, gt=0, description="a run's lease, renewed every third of it")
    queued_lease_seconds: float = Field(3600.0, gt=0, description="how long a queued run may wait for a worker")
    ingest_soft_limit: float = Field(900.0, gt=0, description="soft time limit of an ingestion step (worker)")
    ingest_hard_limit: float = Field(960.0, gt=0, description="hard time limit of an ingestion step (worker)")
    analysis_soft_limit: float = Field(300.0, gt=0, description="soft time limit of an analysis step (worker)")
    analysis_hard_limit: float = Field(330.0, gt=0, description="hard time limit of an analysis step (worker)")
    busy_retry_seconds: float = Field(5.0, gt=0, description="a worker's wait before retrying a busy run")
    outage_retry_max_seconds: float = Field(60.0, gt=0, description="cap of the backoff during an outage")
    resume: bool = Field(True, description="take over interrupted runs (the resumer)")
    resume_interval: float = Field(10.0, gt=0, description="seconds between two sweeps of the resumer")
    resume_max_attempts: int = Field(5, ge=1, description="takeovers of one run before it is stopped (error)")
    lost_message_grace_seconds: float = Field(
        20.0, ge=0, description="a queued run's age before the resumer may re-send a message the broker lost"
    )
    # isolated ingestion of an uploaded document (engine/documents/isolated)
    ingest_seconds: float = Field(60.0, gt=0, description="wall clock of one isolated ingestion (OCR included)")
    ingest_memory_mb: int = Field(1536, gt=0, description="address space of the ingestion child")
    ingest_max_pages: int = Field(300, gt=0, description="pages of one uploaded PDF")
    ingest_max_decompressed: int = Field(150_000_000, gt=0, description="bytes of a PDF's inflated streams")
    # the sandbox of dynamic rules and the tenants' quotas of it (sandbox/, engine/tenancy)
    sandbox_workers: int = Field(2, ge=1, description="processes of the dynamic-rule sandbox pool")
    quota_proposals_per_minute: int = Field(30, ge=0, description="dynamic-rule proposals per tenant per minute")
    quota_concurrent_runs: int = Field(1, ge=1, description="sandbox runs one tenant may hold at once")
    quota_worker_seconds_per_minute: float = Field(20.0, gt=0, description="sandbox seconds per tenant per minute")
    quota_heavy_seconds: float = Field(
        2.0, ge=0, description="sandbox seconds a minute past which a tenant is heavy (heavy ones share workers-1)"
    )
    # exact or sampled inference: the route of a verdict's probability (engine/prob/inference_plan)
    inference_max_intermediate: int = Field(
        1 << 24, gt=0, description="entries of a contraction's largest tensor (8 bytes each) beyond which it is not run"
    )
    inference_max_flops: float = Field(
        2e9, gt=0, description="operations of one contraction pass beyond which the worlds are enumerated or sampled"
    )
    inference_max_worlds: int = Field(1 << 21, gt=0, description="worlds enumerated at most when not contracted")
    inference_pilot: int = Field(1 << 12, gt=0, description="draws of the pilot run that measures the sampling error")
    inference_target_se: float = Field(
        0.002, gt=0, lt=0.5, description="standard error of P(target) a sampled verdict aims at (±0.4 point at 95 %)"
    )
    inference_samples: int = Field(1 << 18, gt=0, description="draws of a sampled verdict at most")
    # first-order provers (bridges/fol_*)
    eprover: str | None = Field(None, description="the E prover binary; None: `eprover` on PATH")
    tweety_classpath: str = Field("", description="Tweety jars (os.pathsep-separated files, folders or globs)")
    tweety_timeout: float = Field(60.0, gt=0, description="deadline of one Tweety query (child process)")
    tweety_memory_mb: int = Field(512, gt=0, description="JVM heap of a Tweety query (-Xmx)")

    @property
    def database(self) -> str:
        """The database URL actually used: ``database_url``, else a SQLite file under ``home``."""
        if self.database_url:
            return self.database_url
        self.home.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.home / 'lexlogic.db'}"

    @property
    def runs_dir(self) -> Path:
        return self.home / "runs"

    @property
    def documents_cache(self) -> Path | None:
        return None if self.no_cache else self.home / "cache" / "documents"

    @property
    def nlp_cache(self) -> Path | None:
        """Compiled patterns of the French pipeline's load (`bridges.regex_cache`), None with ``no_cache``."""
        return None if self.no_cache else self.home / "cache" / "nlp"

    @property
    def packs_cache(self) -> Path | None:
        """Loaded and compiled rule packs kept between processes (`engine/packs/disk_cache`): under ``home``
        when it was set, else the user's cache folder; None with ``no_cache``."""
        if self.no_cache:
            return None
        if "home" in self.model_fields_set:
            return self.home / "cache" / "packs"
        try:
            return Path.home() / ".cache" / "lexlogic" / "packs"
        except RuntimeError:  # no home folder known (no HOME, no passwd entry): no cache, not an error
            return None

    @property
    def fallacies_cache(self) -> Path:
        """The fallacy embeddings' cache: under ``home`` when it was set, else the user's cache folder."""
        if "home" in self.model_fields_set:
            return self.home / "cache" / "fallacies"
        return Path.home() / ".cache" / "lexlogic" / "fallacies"

    @classmethod
    def defaults(cls) -> Settings:
        """The built-in values, the environment NOT read: what a library call gets when its caller passes no
        settings (the edges always pass theirs)."""
        return cls.model_construct()

    @classmethod
    def describe(cls, names: tuple[str, ...] | None = None) -> str:
        """One line per variable (all, or the fields ``names``): name, default, meaning — for the `--help` of
        the commands they apply to and the deployment guide."""
        lines = []
        for name in names or tuple(cls.model_fields):
            field = cls.model_fields[name]
            default = field.default if field.default is not None else "—"
            lines.append(f"LEXLOGIC_{name.upper()} (default {default}): {field.description}")
        return "\n\n".join(lines)


# Which variables a command reads (its `--help` lists them with their meaning).
WORKER_SETTINGS = (
    "broker_url",
    "database_url",
    "queue_prefix",
    "run_lease_seconds",
    "queued_lease_seconds",
    "ingest_soft_limit",
    "ingest_hard_limit",
    "analysis_soft_limit",
    "analysis_hard_limit",
    "busy_retry_seconds",
    "outage_retry_max_seconds",
    "resume",
    "resume_interval",
    "resume_max_attempts",
    "lost_message_grace_seconds",
    "no_cache",
)
SERVER_SETTINGS = (
    "database_url",
    "broker_url",
    "api_data",
    "run_wait_seconds",
    "run_lease_seconds",
    "queued_lease_seconds",
    "resume",
    "resume_interval",
    "resume_max_attempts",
    "ingest_seconds",
    "ingest_memory_mb",
    "ingest_max_pages",
    "ingest_max_decompressed",
    "sandbox_workers",
    "quota_proposals_per_minute",
    "quota_concurrent_runs",
    "quota_worker_seconds_per_minute",
    "quota_heavy_seconds",
    "dynamic_require_approval",
    "llm_base_url",
)
BATCH_SETTINGS = ("database_url", "broker_url", "queue_prefix", "run_lease_seconds", "queued_lease_seconds", "no_cache")
FOL_SETTINGS = ("eprover", "tweety_classpath", "tweety_timeout", "tweety_memory_mb")


def child_environment(prefixes: tuple[str, ...]) -> dict[str, str]:
    """The variables a child process inherits (those starting with one of ``prefixes``): the process
    environment is read here and at the edge only, so a sandboxed child's environment is chosen here too."""
    return {k: v for k, v in os.environ.items() if k.startswith(prefixes)}
