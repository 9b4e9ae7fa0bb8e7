import importlib

import pytest


@pytest.fixture(scope="module")
def tb_domain(request: pytest.FixtureRequest):
    """The domain of the bundled package a task lives in: its ``DOMAIN`` (models, tools, policy, clock)."""
    return importlib.import_module(request.module.__package__).DOMAIN
