"""The MCP server (``neuroncmp mcp``): each tool answers what the CLI prints, reads only under the
served folders, and never hands an agent a traceback. Calls go through the SDK's own in-memory client."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

pytest.importorskip("mcp")
import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from neuroncmp.agent import schemas
from neuroncmp.agent.protocol import build
from neuroncmp.agent.server import Service
from neuroncmp.choices import SORTS
from neuroncmp.cli import cli

RUN = "profiles/trn1-2xlarge-bs-sweep"
VIEW = "tests/data/third_party/view-json"
ATTENTION = [f"{VIEW}/trn2.3xlarge_profiler-2.28_attention_baseline_bf16_s512.json",
             f"{VIEW}/trn2.3xlarge_profiler-2.28_attention_fused_bf16_s512.json"]
MATMUL = [f"{VIEW}/inf2.xlarge_profiler-2.27_matmul_128x128x256.json",
          f"{VIEW}/inf2.xlarge_profiler-2.27_matmul_128x128x1024.json"]


def call(service: Service, *calls: tuple[str, dict]) -> list:
    """Each (tool, arguments) through the SDK's in-memory client: the CallToolResults."""
    async def main() -> list:
        async with Client(build(service)) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]
    return anyio.run(main)


def cli_json(args: list[str], cwd: Path) -> tuple[int, dict | None]:
    """The CLI's --format json document for the same arguments, run in the served folder."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, [args[0], "--format", "json", *args[1:]], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else None


PARITY = [
    ("diff", {"files": [f"{RUN}/baseline.json", f"{RUN}/b32.json"]}),
    ("diff", {"files": [RUN], "threshold": ["time=3%"], "sort": "change"}),
    ("diff", {"files": [f"{RUN}/baseline.json", f"{RUN}/b32.json"], "fail-on": ["total_time/step>+5%"]}),
    ("diff", {"files": ATTENTION, "bounds": True}),
    ("sweep", {"files": [RUN]}),
    ("show", {"files": [f"{RUN}/b32.json"]}),
    ("show", {"files": [ATTENTION[1]], "peak-tflops": 90}),
    ("ops", {"files": MATMUL, "top": 5}),
]


def as_cli(name: str, arguments: dict) -> list[str]:
    """The same call written as the command line a user types."""
    command = cli.get_command(None, name)  # type: ignore[arg-type]
    argv, _ = schemas.argv(command, arguments, allow_write=False)
    return [name, *argv]


def test_every_tool_returns_the_clis_json_document():
    service = Service(cli, [ROOT])
    results = call(service, *[(name, {**arguments, "full": True}) for name, arguments in PARITY])
    for (name, arguments), result in zip(PARITY, results, strict=True):
        code, document = cli_json(as_cli(name, arguments), ROOT)
        assert not result.is_error, (name, result.content[0].text)
        assert result.structured_content["exit_code"] == code
        assert result.structured_content["document"] == document, (name, arguments)
        assert result.structured_content["schema_version"] == schemas.SCHEMA_VERSION


def test_a_tripped_gate_is_an_answer_with_exit_3_not_an_error():
    # b32's step time is 114.7 ms against 53.78 ms: +113 %, far over +5 %
    [result] = call(Service(cli, [ROOT]), ("diff", {"files": [f"{RUN}/baseline.json", f"{RUN}/b32.json"],
                                                     "fail-on": ["total_time/step>+5%"]}))
    assert not result.is_error
    assert result.structured_content["exit_code"] == 3
    assert "document" not in result.structured_content  # the summary only, unless full is asked for
    text = result.content[0].text
    assert "step time (device) [ms]" in text and "53.78" in text and "114.7" in text
    assert "exit 3: a gate tripped" in text


def test_store_tools_read_a_store_under_the_served_folder(tmp_path):
    store = tmp_path / "store"
    added = CliRunner().invoke(cli, ["store", "add", str(ROOT / RUN), "--store", str(store), "--tag", "model=bert"])
    assert added.exit_code == 0, added.output
    service = Service(cli, [tmp_path])
    history, regressions = call(service, ("history", {"metric": "total_time", "store": "store", "full": True}),
                                ("regressions", {"store": "store", "full": True}))
    for name, result, args in (("history", history, ["history", "total_time", "--store", "store"]),
                               ("regressions", regressions, ["regressions", "--store", "store"])):
        assert not result.is_error, result.content[0].text
        assert result.structured_content["document"] == cli_json(args, tmp_path)[1], name


def test_paths_outside_the_served_folders_are_refused(tmp_path):
    served, outside = tmp_path / "served", tmp_path / "outside"
    served.mkdir()
    outside.mkdir()
    (outside / "b32.json").write_bytes((ROOT / RUN / "b32.json").read_bytes())
    (served / "link.json").symlink_to(outside / "b32.json")
    (served / "run").mkdir()
    (served / "run" / "b32.json").symlink_to(outside / "b32.json")
    (served / "mine.json").write_bytes((ROOT / RUN / "b32.json").read_bytes())
    results = call(Service(cli, [served]),
                   ("show", {"files": [str(outside / "b32.json")]}), ("show", {"files": ["../outside/b32.json"]}),
                   ("show", {"files": ["link.json"]}), ("show", {"files": ["run"]}),
                   ("history", {"metric": "total_time", "store": str(outside)}),
                   ("ranks", {"files": ["mine.json"], "baseline": ["../outside"]}),
                   ("show", {"files": ["mine.json"]}))
    for result in results[:6]:
        assert result.is_error
        assert "outside the folders this server reads" in result.content[0].text
        assert "Traceback" not in result.content[0].text
    assert not results[6].is_error  # a file inside is read


def test_nothing_is_written_unless_the_server_may_write(tmp_path):
    read_only = Service(cli, [tmp_path])
    schema = {tool["name"]: tool["input_schema"]["properties"] for tool in read_only.tools()}
    assert "output" not in schema["diff"] and "charts" not in schema["sweep"]
    [refused] = call(read_only, ("sweep", {"files": [str(ROOT / RUN)], "charts": "charts"}))
    assert refused.is_error and "'charts' was unexpected" in refused.content[0].text
    writer = Service(cli, [tmp_path, ROOT], allow_write=True)
    assert "output" in {tool["name"]: tool["input_schema"]["properties"] for tool in writer.tools()}["diff"]
    [outside, inside] = call(writer, ("diff", {"files": [str(ROOT / RUN)], "output": "/tmp/elsewhere.json"}),
                             ("diff", {"files": [str(ROOT / RUN)], "output": "d.json"}))
    assert outside.is_error and not Path("/tmp/elsewhere.json").exists()
    assert not inside.is_error and json.loads((tmp_path / "d.json").read_text())["schema"].startswith("neuroncmp")


def test_errors_are_the_clis_one_line_message():
    bad = {"files": [f"{RUN}/baseline.json", f"{RUN}/b32.json"], "threshold": ["x"]}
    missing = {"files": ["no-such.json"]}
    service = Service(cli, [ROOT])
    for arguments, result in zip((bad, missing), call(service, ("diff", bad), ("diff", missing)), strict=True):
        old = Path.cwd()
        os.chdir(ROOT)
        try:
            said = CliRunner().invoke(cli, as_cli("diff", arguments))
        finally:
            os.chdir(old)
        expected = [line for line in said.stderr.splitlines() if line.startswith("Error:")]
        assert result.is_error and said.exit_code in (1, 2)
        assert result.content[0].text.splitlines() == expected


def test_schemas_come_from_the_commands_and_carry_a_version():
    tools = {tool["name"]: tool for tool in Service(cli, [ROOT]).tools()}
    assert set(tools) >= {"show", "diff", "sweep", "ops", "history", "regressions"}
    assert "capture" not in tools and "store" not in tools and "report" not in tools
    diff = tools["diff"]["input_schema"]
    assert diff["properties"]["sort"]["enum"] == list(SORTS)
    assert diff["properties"]["files"] == {"type": "array", "items": {"type": "string"}, "minItems": 1}
    assert diff["required"] == ["files"] and diff["additionalProperties"] is False
    assert diff["properties"]["history-runs"]["minimum"] == 5  # click.IntRange(5)
    assert all(tool["meta"] == {"neuroncmp/schema_version": schemas.SCHEMA_VERSION} for tool in tools.values())


def test_an_oversized_document_is_left_out_and_said(monkeypatch):
    from neuroncmp.agent import server

    monkeypatch.setattr(server, "MAX_DOCUMENT_BYTES", 1000)
    [result] = call(Service(cli, [ROOT]), ("show", {"files": [f"{RUN}/b32.json"], "full": True}))
    assert not result.is_error and "document" not in result.structured_content
    assert "over the 1,000-byte cap" in result.content[0].text


def test_resources_are_the_catalog_and_the_formats():
    async def main() -> dict[str, str]:
        async with Client(build(Service(cli, [ROOT]))) as client:
            listed = await client.list_resources()
            return {str(r.uri): (await client.read_resource(str(r.uri))).contents[0].text for r in listed.resources}
    texts = anyio.run(main)
    assert json.loads(texts["neuroncmp://formats"]) == cli_json(["formats"], ROOT)[1]
    assert json.loads(texts["neuroncmp://metrics"]) == cli_json(["metrics"], ROOT)[1]


def test_the_server_answers_over_stdio():
    params = StdioServerParameters(command=sys.executable, args=["-m", "neuroncmp", "mcp", str(ROOT)])

    async def main() -> tuple[list[str], str]:
        async with Client(params) as client:
            tools = await client.list_tools()
            shown = await client.call_tool("show", {"files": [f"{RUN}/b32.json"]})
            return [tool.name for tool in tools.tools], shown.content[0].text
    names, text = anyio.run(main)
    assert "diff" in names and "capture" not in names
    assert "b32" in text and "Traceback" not in text


def test_mcp_help_and_a_missing_extra(monkeypatch):
    assert CliRunner().invoke(cli, ["mcp", "--help"]).exit_code == 0
    monkeypatch.setitem(sys.modules, "mcp.server.lowlevel", None)
    said = CliRunner().invoke(cli, ["mcp", str(ROOT)])
    assert said.exit_code == 1 and "pip install 'neuroncmp[mcp]'" in said.output
    assert shlex.split("neuroncmp mcp .")  # the README's example parses (tests/test_docs.py runs it)


# ---- the docs: the conversation and the agent skill say what the tools answer --------------------------

MCP_PAGE = (ROOT / "docs" / "commands" / "mcp.md").read_text()
SKILL = (ROOT / "docs" / "agent-skill.md").read_text()


def test_the_docs_conversation_is_what_the_tool_answers():
    from test_readme_transcripts import Transcript, check

    [block] = re.findall(r"```text\n→ (\w+) (\{.*?\})\n(.*?)```", MCP_PAGE, re.S)
    name, arguments, body = block
    [result] = call(Service(cli, [ROOT]), (name, json.loads(arguments)))
    lines = [line.rstrip() for line in result.content[0].text.splitlines()]
    check(Transcript("docs/commands/mcp.md", name, body), lines)
    prose = " ".join(line[2:] for line in MCP_PAGE.split(block[2], 1)[1].splitlines() if line.startswith("> "))
    numbers = re.findall(r"\d+(?:\.\d+)?", prose)
    assert len(numbers) >= 10 and [n for n in numbers if n not in result.content[0].text] == []


def test_the_skills_marks_are_the_tools_marks():
    from neuroncmp.render.changes import MARK, NOT_SIGNIFICANT, NOT_SIGNIFICANT_WORD, WORD

    table = SKILL.split("| mark | meaning |", 1)[1].split("\n\n", 1)[0]
    rows = dict(line.strip("|").split(" | ", 1) for line in table.strip().splitlines()[1:])
    rows = {mark.strip(): meaning.strip() for mark, meaning in rows.items()}
    marks = {mark: WORD[verdict] for verdict, mark in MARK.items() if mark and mark not in ("new", "gone")}
    marks[NOT_SIGNIFICANT] = NOT_SIGNIFICANT_WORD
    assert set(rows) == {*marks, "new / gone"}
    assert [mark for mark, word in marks.items() if not rows[mark].startswith(word)] == []


def test_the_skills_not_comparable_and_document_fields_hold_on_unlike_runs():
    kernel = f"{VIEW}/trn2.3xlarge_profiler-2.28_attention_fused_bf16_s512.json"
    [result] = call(Service(cli, [ROOT]), ("diff", {"files": [f"{RUN}/baseline.json", kernel], "full": True}))
    assert result.content[0].text.startswith("not comparable:")
    document = result.structured_content["document"]
    assert list(document["not_comparable"]) == [label for label, tally in document["tally"].items() if tally is None]
    fields = re.findall(r"`(\w+)`", SKILL.split("In the full `diff` document:", 1)[1])
    assert fields and [field for field in fields if field not in document] == []
