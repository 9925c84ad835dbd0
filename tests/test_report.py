"""``bull report``: every game and preset, the rule sets, the plots, the cross-checks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from solver.cli import main
from solver.games.niuniu import odds as nn_odds
from solver.games.pokdeng import odds as pd_odds
from solver.games.taungau import odds as tn_odds
from solver.kit import exact as an
from solver.report import headline, headline_text
from solver.schemas import load, validate
from solver.store.tables import read_manifest

REPO_TABLES = Path(__file__).resolve().parent.parent / "tables"
ALL = {"niuniu", "taungau", "pokdeng", "pokdeng_strategy"}


@pytest.fixture(scope="module")
def all_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with every game's tables: the committed ones, else a fresh build."""
    if REPO_TABLES.is_dir() and set((read_manifest(REPO_TABLES) or {}).get("tables", {})) >= ALL:
        return REPO_TABLES
    from solver.build import build

    out = tmp_path_factory.mktemp("report_tables")
    build(None, tables=out)
    return out


@pytest.fixture(scope="module")
def report(all_tables: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("report")
    buf, err = io.StringIO(), io.StringIO()
    # two shoe sizes, small table simulations and tables of up to two players keep the
    # suite fast (a third player cost 8 CPU-s); the curve's figures are tested in the
    # shoe tests, the risk figures at every table size in tests/test_risk_*.py
    argv = ["report", "--out", str(out), "--tables", str(all_tables), "--json"]
    small = ["--shoe-decks", "1,6", "--sim-tables", "20000", "--players", "2"]
    code = main([*argv, *small], out=buf, err=err)
    assert code == 0, err.getvalue()
    rec = json.loads(buf.getvalue())
    assert validate(rec, load("report")) == []  # solver/schemas/report.json
    return out, rec


@pytest.mark.slow
def test_report_has_every_game_preset_and_rule_set(report: tuple[Path, dict]) -> None:
    out, rec = report
    text = (out / "report.md").read_text(encoding="utf-8")
    assert rec["report"] == str(out / "report.md")
    for heading in (
        "## Niu Niu",
        "### Preset `classic`",
        "### Preset `casino`",
        "## Tau Ngau",
        "### Preset `macau`",
        "### Preset `pagat`",
        "## Pok Deng",
        "### Preset `standard`",
        "### Preset `straights`",
    ):
        assert heading in text
    for name in ("classic", "casino", "macau", "pagat", "standard", "straights"):
        assert f"Rule set <code>{name}</code>" in text
    assert "`-1/40`" in text  # classic equal, 5 % (RULES §3)
    assert "| 872,128 |" in text and "| 55,510 |" in text  # RULES §6 counts
    assert "**NO**" not in text  # every exact figure in its interval
    assert "simulated over 20,000 tables" in text and "2,000,000 tables" not in text
    assert rec["seconds"] > 0  # the time is reported; its limit is scripts/bench_commands.py's


@pytest.mark.slow
def test_report_figures_match_the_api(report: tuple[Path, dict], all_tables: Path) -> None:
    out, _ = report
    text = (out / "report.md").read_text(encoding="utf-8")
    double = nn_odds.niuniu_edge("classic", "double", None, all_tables)
    macau = tn_odds.taungau_edge("macau", "first", all_tables)
    pok = pd_odds.pokdeng_edge("straights", 4)
    for f in (double.ev, macau.ev_optimal_first, macau.ev_always_declare, pok.ev_optimal):
        assert f"`{an.fraction_text(f)}`" in text


@pytest.mark.slow
def test_report_plots_are_real_images(report: tuple[Path, dict]) -> None:
    from matplotlib.image import imread

    out, rec = report
    names = {Path(p).name for p in rec["images"]}
    assert {
        "niuniu_categories.png",
        "niuniu_ev_by_class.png",
        "macau_decline.png",
        "pokdeng_strategy_standard.png",
        "pokdeng_policy.png",
        "niuniu_classic_double_risk_funnel.png",
        "niuniu_classic_equal_risk_reserve.png",
        "taungau_macau_risk_distribution.png",
        "pokdeng_straights_risk_reserve.png",
    } <= names
    text = (out / "report.md").read_text(encoding="utf-8")
    for name in names:
        img = imread(out / name)
        assert img.shape[0] > 300 and img.shape[1] > 300
        assert f"]({name})" in text  # linked from the report


@pytest.mark.slow
def test_headline_block(all_tables: Path) -> None:
    text = headline_text(headline(all_tables))
    assert "`-1/40`" in text and "Niu Niu `casino`" in text and "Pok Deng `straights`" in text
    assert text.count("\n| ") == 1 + 11 + 4  # the rule line, 11 figures, the risk table
    assert "a full table of 9 players" in text


def test_report_bad_output_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    err = io.StringIO()
    code = main(
        ["report", "--out", str(blocker / "sub"), "--tables", str(tmp_path)],
        out=io.StringIO(),
        err=err,
    )
    assert code == 2 and err.getvalue().startswith("bull: error:")


def test_without_matplotlib_the_report_says_how_to_get_plots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No matplotlib: write_report draws nothing (its own check of the import), and the
    command says in one line how to add the plots (exit 0). The report itself is stubbed
    here: its content is tested above."""
    from solver import report

    monkeypatch.setattr(
        report,
        "write_report",
        lambda out, tables, **kwargs: report.ReportResult(tmp_path / "r.md", (), 0.1),
    )

    class Args:
        out = str(tmp_path)
        tables = None
        json = False
        err = io.StringIO()

    assert report.cli_report(Args(), io.StringIO()) == 0
    assert "pip install 'bull-solver[plot]'" in Args.err.getvalue()
    assert Args.err.getvalue().count("\n") == 1


def test_a_rule_file_gets_its_own_section(tmp_path: Path) -> None:
    """``bull report --rules FILE``: the game is the file's own, the section holds the
    rule set, its exact odds and its exact edge (the same as ``bull edge``)."""
    from solver import games, report
    from solver.kit.markdown import ReportContext

    path = tmp_path / "house.toml"
    path.write_text(
        'game = "pokdeng"\nbase = "standard"\nname = "house"\nequal_points = "push"\n'
        "[deng]\nthree_card_pair = 2\n"
    )
    game, spec = report._house_game(str(path))
    assert game.name == "pokdeng"
    ctx = ReportContext(tmp_path, None, False, 10)
    report._house_section(ctx, game, spec)
    text = "\n".join(ctx.md)
    assert "## Pok Deng: rule file `house.toml`" in text and '"three_card_pair": 2' in text
    assert games.get("pokdeng").edge(spec, {}, None).text() in text
    assert "3 card deng" in text.lower()
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "chess"\n')
    out, err = io.StringIO(), io.StringIO()
    code = main(["report", "--out", str(tmp_path / "r"), "--rules", str(bad)], out=out, err=err)
    assert code == 2 and "'game' must name one of" in err.getvalue() and out.getvalue() == ""


@pytest.mark.slow
def test_report_compares_shoe_sizes(report: tuple[Path, dict]) -> None:
    """The one-deck-to-shoe tables hold the sizes asked for; one deck through the shoe
    computation equals preset classic exactly."""
    out, _ = report
    text = (out / "report.md").read_text(encoding="utf-8")
    nn = text.split("### From one deck to an 8-deck shoe")[1].split("###")[0]
    rows = [line for line in nn.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [r.split("|")[1].strip() for r in rows] == ["1", "6"]
    assert (
        "| 1 | 2.500% | `-1/40` |" in nn
        and "equals preset `classic`'s figures exactly: **yes**" in nn
    )
    assert "| 6 | 2.482% |" in nn and (out / "niuniu_shoe.png").exists()


def test_shoe_decks_option_is_validated() -> None:
    for bad in ("0,2", "1,9", "x"):
        buf, err = io.StringIO(), io.StringIO()
        assert main(["report", "--shoe-decks", bad], out=buf, err=err) == 2
        assert "decks" in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1


def test_report_risk_tables_seat_the_players_asked_for(report: tuple[Path, dict]) -> None:
    """``--players 2``: every risk section's table has the rows 1 and 2 players (no
    game's full table is smaller), one per size, in order."""
    out, _ = report
    text = (out / "report.md").read_text(encoding="utf-8")
    sections = text.split("#### Risk: the banker at a table")[1:]
    assert len(sections) == 5 + 2 + 2  # Niu Niu (four presets, double bet), Tau Ngau, Pok Deng
    for section in sections:
        table = section.split("\n\n")[2]  # the heading's rest, the text, then the table
        rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
        assert rows == ["1", "2"], table


def test_players_option_is_validated() -> None:
    for bad in ("0", "17", "x"):
        buf, err = io.StringIO(), io.StringIO()
        assert main(["report", "--players", bad], out=buf, err=err) == 2
        assert "--players" in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1
