"""The Dask executor: the same results as local grading, from contents shipped by the client."""

import csv

import pytest

distributed = pytest.importorskip("distributed")

from course_content import ASSIGNMENT  # noqa: E402 - after the skip
from qkv.cli import main  # noqa: E402 - after the skip
from qkv.content import loader  # noqa: E402 - after the skip
from qkv.grade import dask_executor  # noqa: E402 - after the skip
from qkv.grade.batch import grade  # noqa: E402 - after the skip
from qkv.intake.submissions import Submission, with_files  # noqa: E402 - after the skip
from qkv.results import records as results  # noqa: E402 - after the skip
from qkv.sandbox import host as sandbox  # noqa: E402 - after the skip
from qkv.sandbox import isolation  # noqa: E402 - after the skip
from qkv.validate import synthetic  # noqa: E402 - after the skip

KINDS = [
    "honest_reference",
    "honest_einsum",
    "mistake_softmax_axis0",
    "mistake_softmax_no_max",
    "mistake_project_swapped_qk",
    "stub",
    "broken_syntax_error",
    "broken_import_error",
]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


@pytest.fixture(scope="module")
def klass(content, tmp_path_factory, reference_source, course, assignment, ref):
    subs = tmp_path_factory.mktemp("dask") / "subs"
    answers = synthetic.answers_for(course, assignment, content)
    synthetic.write_class(content, subs, 20, kinds=KINDS, answers=answers)
    (subs / "too_big").mkdir()
    (subs / "too_big" / "attention.py").write_bytes(
        b"#" * (course.limits.max_submission_kb * 1024 + 1)
    )
    template = (course.root / "exercises" / "attention" / "attention.ipynb").read_text()
    (subs / "nb_student.ipynb").write_text(
        synthetic.notebook_submission(
            template, reference_source, answers("nb_student", "honest_reference")
        )
    )
    return subs


def test_dask_gradebook_and_results_are_byte_identical_to_local(tmp_path, course, klass, cluster):
    local, dask = tmp_path / "local", tmp_path / "dask"
    grade(course, klass, assignment="attention", out=local, jobs=2, progress=False, pages=False)
    summary = grade(
        course,
        klass,
        assignment="attention",
        out=dask,
        jobs=2,
        progress=False,
        pages=False,
        executor=dask_executor.DaskExecutor(cluster.scheduler_address),
    )
    assert summary.graded == 22 and summary.errors == []
    assert (dask / "gradebook.csv").read_bytes() == (local / "gradebook.csv").read_bytes()
    names = sorted(p.name for p in (local / "results").glob("*.json"))
    assert sorted(p.name for p in (dask / "results").glob("*.json")) == names
    for name in names:
        assert (dask / "results" / name).read_bytes() == (local / "results" / name).read_bytes(), (
            name
        )
    rows = {r["student"]: r for r in csv.DictReader((dask / "gradebook.csv").open())}
    assert (
        rows["too_big"]["status"].startswith("ungradable:")
        and "larger than" in rows["too_big"]["status"]
    )
    assert (
        rows["s0003_honest_reference"]["total"] == "120"
    )  # code and quiz, the answers shipped as text
    assert rows["nb_student"]["quiz"] == "20"  # read from the notebook's answers cell on the client


def test_the_run_reports_the_workers_isolation(
    content, tmp_path, course, reference_source, cluster
):
    subs = tmp_path / "subs"
    synthetic.write_class(content, subs, kinds=["honest_reference"])
    executor = dask_executor.DaskExecutor(cluster.scheduler_address)
    summary = grade(
        course,
        subs,
        assignment="attention",
        out=tmp_path / "out",
        progress=False,
        pages=False,
        executor=executor,
    )
    assert summary.isolation == executor.isolation == sandbox.layers().describe()


def _slot_and_uid(name, dask_worker=None):
    plugin = dask_worker.plugins[name]
    return plugin.ctx.sandbox.slot, plugin.ctx.sandbox.uid


def test_two_workers_on_one_machine_get_distinct_slots_and_uids(
    course, assignment, reference_source, cluster
):
    plugin = dask_executor.GradingPlugin(course, assignment, loader.snapshot(course, assignment))
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        client.register_plugin(plugin, name=plugin.name)
        try:
            got = list(client.run(_slot_and_uid, plugin.name).values())
        finally:
            client.unregister_worker_plugin(plugin.name)
    assert len(got) == 2 and len({slot for slot, _ in got}) == 2
    if sandbox.layers().uid_drop:
        assert {uid for _, uid in got} == {isolation.SANDBOX_UID_BASE + slot for slot, _ in got}


def test_a_worker_with_another_version_stops_the_run_with_one_line(
    tmp_path, course, klass, cluster, monkeypatch, capsys
):
    monkeypatch.setattr(dask_executor, "__version__", "0.0.0-other")
    code = main(
        [
            "grade",
            str(klass),
            "--out",
            str(tmp_path / "out"),
            "--course",
            str(course.root),
            "--quiet",
            "--executor",
            "dask",
            "--scheduler",
            cluster.scheduler_address,
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "could not set up grading" in err and "0.0.0-other" in err


def test_a_chunk_is_graded_from_shipped_contents_without_reading_its_path(
    content, tmp_path, course, assignment, ref, reference_source
):
    """What a worker on another machine does: the paths the client read are not there."""
    folder = tmp_path / "far"
    folder.mkdir()
    (folder / "attention.py").write_text(reference_source)
    (folder / "answers.yaml").write_text(
        synthetic.answers_for(course, assignment, content)("far", "honest_reference")
    )
    shipped = with_files(
        course, ASSIGNMENT, Submission("far", folder / "attention.py", folder / "answers.yaml")
    )
    for path in folder.iterdir():
        path.unlink()
    plugin = dask_executor.GradingPlugin(course, assignment, loader.snapshot(course, assignment))
    plugin._build()
    try:
        graded, errors = plugin.grade([shipped])
    finally:
        plugin.teardown(worker=None)
    assert errors == [] and [d["extra_data"]["student"] for d in graded] == ["far"]
    far = results.StudentResult.from_json(graded[0])
    assert far.total == 120  # code and quiz, though neither file exists any more


def test_the_client_reads_code_within_the_limits_and_names_what_it_refuses(
    tmp_path, course, reference_source
):
    good, big, latin = tmp_path / "good.py", tmp_path / "big.py", tmp_path / "latin.py"
    good.write_text(reference_source)
    big.write_bytes(b"#" * (course.limits.max_submission_kb * 1024 + 1))
    latin.write_bytes(b"# caf\x81\n")  # no character in UTF-8 nor in Windows' code page
    read = {
        p.stem: with_files(course, ASSIGNMENT, Submission(p.stem, p, None))
        for p in (good, big, latin)
    }
    assert (
        read["good"].files == {"attention.py": reference_source.encode()}
        and not read["good"].problem
    )
    assert read["big"].files is None and "larger than" in read["big"].problem
    assert read["latin"].files is None and "not UTF-8" in read["latin"].problem


@pytest.mark.parametrize(
    "args, message",
    [
        (["--executor", "dask"], "--executor dask needs --scheduler"),
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler is only for --executor dask"),
        (
            ["--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"],
            "cannot reach the Dask scheduler at tcp://127.0.0.1:1",
        ),
    ],
)
def test_executor_options_that_cannot_work_are_one_line_exit_2(
    tmp_path, course, klass, monkeypatch, capsys, args, message
):
    monkeypatch.setattr(dask_executor, "CONNECT_TIMEOUT_S", 1.0)
    code = main(
        [
            "grade",
            str(klass),
            "--out",
            str(tmp_path / "out"),
            "--course",
            str(course.root),
            "--quiet",
            *args,
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("qkv: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_rerun_with_everyone_graded_needs_no_cluster(content, tmp_path, course, reference_source):
    subs = tmp_path / "subs"
    synthetic.write_class(content, subs, kinds=["honest_reference"])
    grade(
        course,
        subs,
        assignment="attention",
        out=tmp_path / "out",
        jobs=1,
        progress=False,
        pages=False,
    )
    summary = grade(
        course,
        subs,
        assignment="attention",
        out=tmp_path / "out",
        progress=False,
        pages=False,
        executor=dask_executor.DaskExecutor("tcp://127.0.0.1:1", timeout_s=0.5),
    )
    assert (summary.graded, summary.reused) == (0, 1)
