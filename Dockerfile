# gpucost: the API with its built-in catalog. SQLite by default (a volume at /data), or
# PostgreSQL with GPUCOST_DATABASE_URL=postgresql+psycopg://... (see compose.yaml).
#   docker build -t gpucost . && docker run -p 8000:8000 gpucost

# --- build: runtime dependencies into a virtualenv (cached until the lock file changes) ---
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /venv
COPY requirements.runtime.lock /tmp/requirements.runtime.lock
RUN /venv/bin/pip install -r /tmp/requirements.runtime.lock
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
RUN /venv/bin/pip install --no-deps .

# --- runtime: the virtualenv, migrations and a non-root user ---
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/venv/bin:$PATH \
    GPUCOST_DATABASE_URL=sqlite:////data/gpucost.db \
    GPUCOST_LOG_FORMAT=json GPUCOST_WORKERS=2 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/gpucost-metrics
RUN useradd --system --uid 10001 --home-dir /srv --shell /usr/sbin/nologin gpucost \
    && mkdir -p /data /srv && chown gpucost /data
COPY --from=build /venv /venv
WORKDIR /srv
COPY alembic.ini ./
COPY migrations ./migrations
USER 10001
EXPOSE 8000
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2).status != 200)"]

# Migrations and the catalog seed run first (both idempotent), then the workers.
CMD ["sh", "-c", "gpucost migrate && gpucost seed && exec gpucost serve --host 0.0.0.0 --port 8000"]
