from shop import OrderFactory, Refund

from pytest_thinkingbox import User, call


def test_case_SH001_001(tb):
    """Delivered 12 days ago: inside the 30-day window, so refund in full."""
    order = OrderFactory()

    run = tb.run(
        User(says="The blender I ordered arrived broken. I want my money back.", knows={"order id": order.id}),
        golden=[call("get_order", order_id=order.id), call("refund_order", order_id=order.id, reason="damaged")],
    )

    run.expect_golden()
    assert run.db.get(Refund, "RF-0001").amount_cents == 4_999
