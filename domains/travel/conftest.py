import pytest


@pytest.fixture(scope="session")
def tb_domain():
    """The travel domain: models, tools, policy and clock."""
    from domains.travel import DOMAIN

    return DOMAIN
