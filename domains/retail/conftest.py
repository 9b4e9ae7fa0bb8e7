import pytest


@pytest.fixture(scope="session")
def tb_domain():
    """The retail domain: models, tools, policy and clock."""
    from domains.retail import DOMAIN

    return DOMAIN
