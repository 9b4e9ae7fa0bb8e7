"""The pytest plugin of pytest-thinkingbox: one module per concern, each owning its options and hooks.

    roles      --tb-agent, --tb-user, --tb-judge, --tb-config, --tb-base-url and their fixtures
    model_cache --tb-cache, --tb-cache-mode, --tb-cache-max-age: model answers kept on disk
    attempts   --tb-repeat, --tb-seed, the limits, the tb_repeat marker and the fixtures (`tb`)
    database   --tb-db and the tb_db_url fixture
    outcomes   each attempt's record on its test report
    concurrency --tb-concurrency: the next tests' episodes started early
    results    --tb-results, --tb-aggregate, --tb-errors, --tb-resume, --tb-rerun-errors, --tb-run, the summary
    gates      --tb-gate
    selected_tasks --tb-tasks: only the tasks a pool file selects
    shards     --tb-shard I/N: one of N disjoint shares of a campaign
    validation --tb-validate and the tb_validity marker (its report: validation_report.py)
    catalog    --tb-capture: what each task declares, read without running; the catalog validation reads

Loading the plugin imports nothing heavy: SQLAlchemy, the MCP SDK and the
agents load only when a task's `tb` fixture is set up.
"""

# Each module comes after the ones it imports, so pytest imports (and rewrites) every one itself.
pytest_plugins = [
    f"pytest_thinkingbox.plugin.{name}"
    for name in (
        "roles",
        "model_cache",
        "catalog",
        "outcomes",
        "concurrency",
        "attempts",
        "database",
        "gates",
        "selected_tasks",
        "validation",
        "shards",
        "results",
    )
]
