"""Live price sources read by ``gpucost catalog refresh --api``: one module per provider and
one line here. Each translates its answer into SkyPilot-column rows that the provider's
catalog loader maps (:mod:`app.catalog.apis.base`); the refresh holds them to the same
integrity gate and price history as a SkyPilot file."""

from app.catalog.apis import aws_bulk, azure_retail, runpod_graphql, vast_search
from app.catalog.apis.base import LiveApi

LIVE_APIS: dict[str, LiveApi] = {
    api.provider: api
    for api in (
        azure_retail.API,
        aws_bulk.API,
        vast_search.API,
        runpod_graphql.API,
    )
}
