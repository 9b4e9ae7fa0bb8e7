import pytest


@pytest.fixture(scope="session")
def tb_domain():
    """The neobank domain: models, tools, policy and clock."""
    from domains.neobank import DOMAIN

    return DOMAIN
