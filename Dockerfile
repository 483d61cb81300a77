# gpucost: FastAPI service with the built-in catalog on SQLite (or GPUCOST_DATABASE_URL).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    GPUCOST_DATABASE_URL=sqlite:////data/gpucost.db
WORKDIR /srv

# Dependencies first, in their own cached layer.
COPY requirements.lock ./
RUN pip install -r requirements.lock

COPY pyproject.toml README.md alembic.ini ./
COPY migrations ./migrations
COPY app ./app
RUN pip install --no-deps -e . \
    && useradd --system --uid 10001 --home /srv gpucost \
    && mkdir -p /data && chown gpucost /data

USER gpucost
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz').status != 200)"

# Migrate and seed (both idempotent), then serve.
CMD ["sh", "-c", "gpucost migrate && gpucost seed && exec gpucost serve --host 0.0.0.0 --port 8000"]
