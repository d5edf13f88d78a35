"""Where the command line's options may go: before the command or after it, the same for every command."""

import argparse

import pytest

from signsvc.cli import parser, serve_options_only, settle
from signsvc.cli.database import shown_url

# Arguments a command requires, so that each can be parsed.
REQUIRED = {
    "accounts create": ["--name", "A", "--email", "a@x.test"],
    "users create": ["--email", "a@x.test"],
    "users setup-link": ["a@x.test"],
    "users admin": ["a@x.test"],
    "users deactivate": ["a@x.test"],
    "keys rotate": ["a@x.test"],
    "webhooks create": ["https://x.test/h"],
    "webhooks update": ["1"],
    "webhooks delete": ["1"],
    "webhooks deliveries": ["1"],
    "webhooks resend": ["1", "2"],
    "webhooks test": ["1"],
    "backup": ["/tmp/b"],
    "restore": ["/tmp/b"],
    "storage migrate": ["--to", "database"],
}


def commands(found: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command the parser has, as the words that name it."""
    actions = [a for a in found._actions if isinstance(a, argparse._SubParsersAction)]
    if not actions:
        return [prefix]
    return [name for word, sub in actions[0].choices.items() for name in commands(sub, (*prefix, word))]


def parsed(argv: list[str]) -> argparse.Namespace:
    top = parser()
    args = top.parse_args(argv)
    settle(top, args)
    return args


EVERY_COMMAND = commands(parser())


def test_the_parser_has_the_commands_the_readme_names():
    assert {("serve",), ("migrate",), ("users", "list"), ("keys", "rotate"), ("backup",), ("restore",)} <= set(
        EVERY_COMMAND
    )


@pytest.mark.parametrize("command", [c for c in EVERY_COMMAND if c != ("tsa",)], ids=" ".join)
def test_database_before_a_command_applies_to_it_as_after_it(command):
    words = [*command, *REQUIRED.get(" ".join(command), [])]
    url = "sqlite:///elsewhere.sqlite3"
    assert parsed(["--database", url, *words]).database == url
    assert parsed([*words, "--database", url]).database == url
    assert parsed(words).database is None


def test_database_before_a_command_that_uses_none_is_refused_saying_so(capsys):
    with pytest.raises(SystemExit) as stopped:
        parsed(["--database", "sqlite:///elsewhere.sqlite3", "tsa"])
    assert stopped.value.code == 2
    assert "--database does not apply to tsa, which uses no database" in capsys.readouterr().err


@pytest.mark.parametrize("command", [c for c in EVERY_COMMAND if c != ("serve",)], ids=" ".join)
def test_listening_options_before_a_command_other_than_serve_are_refused(command, capsys):
    words = [*command, *REQUIRED.get(" ".join(command), [])]
    with pytest.raises(SystemExit) as stopped:
        parsed(["--port", "0", *words])
    assert stopped.value.code == 2
    assert "--port applies to serve only" in capsys.readouterr().err


def test_listening_options_apply_to_serve_before_or_after_it_and_without_a_command():
    for argv in (["--port", "0", "serve"], ["serve", "--port", "0"], ["--port", "0"]):
        assert parsed(argv).port == 0, argv
    assert parsed(["--host", "::1", "--workers", "2", "serve"]).workers == 2


# Command lines of the options before a command alone: the default serve, parsed without the commands.
OPTIONS_ONLY = [
    [],
    ["--port", "0"],
    ["--port=0", "--host", "::1"],
    ["--database", "serve", "--workers", "2"],  # a command's name as an option's value
    ["--host", "0.0.0.0", "--port", "3000", "--workers", "4", "--database", "sqlite:///x.sqlite3"],
    ["--port", "-1"],
    ["--port", "many"],
    ["--workers", "0"],
    ["--port", "1", "--port", "2"],
]


@pytest.mark.parametrize("argv", OPTIONS_ONLY, ids=" ".join)
def test_options_alone_are_parsed_without_the_commands_as_the_whole_parser_parses_them(argv, capsys):
    assert serve_options_only(argv)
    answers = []
    for top in (parser(), parser(with_commands=False)):
        try:
            answers.append(top.parse_args(argv))
        except SystemExit as stopped:
            answers.append((stopped.code, capsys.readouterr().err))
    assert answers[0] == answers[1]


@pytest.mark.parametrize(
    "argv",
    [
        ["serve"],
        ["--port", "0", "serve"],
        ["users", "list"],
        ["--help"],
        ["-h"],
        ["--version"],
        ["--port"],
        ["--data", "sqlite:///x"],
        ["--port", "0", "--"],
        ["bogus"],
    ],
    ids=" ".join,
)
def test_a_command_help_the_version_or_anything_else_is_parsed_by_the_whole_parser(argv):
    assert not serve_options_only(argv)


def test_an_option_given_before_and_after_with_different_values_is_refused(capsys):
    with pytest.raises(SystemExit):
        parsed(["--database", "sqlite:///a", "migrate", "--database", "sqlite:///b"])
    assert "--database is given twice" in capsys.readouterr().err
    assert parsed(["--database", "sqlite:///a", "migrate", "--database", "sqlite:///a"]).database == "sqlite:///a"


def test_a_database_urls_password_is_not_printed():
    assert shown_url("postgresql://app:s3cret@db:5432/sign") == "postgresql://app:***@db:5432/sign"
    assert shown_url("postgresql://postgres@127.0.0.1/test") == "postgresql://postgres@127.0.0.1/test"
    assert shown_url("sqlite:///data/signsvc.sqlite3") == "sqlite:///data/signsvc.sqlite3"
    assert (
        shown_url("postgresql:///sign?host=/run/pg&password=s3cret") == "postgresql:///sign?host=/run/pg&password=***"
    )
    assert shown_url("postgresql://app@db/sign?password=s3cret&x=1") == "postgresql://app@db/sign?password=***&x=1"
    assert shown_url("postgresql://u@h/db?application_name=a@b") == "postgresql://u@h/db?application_name=a@b"
    assert shown_url("postgresql://a:p@ss@h/db") == "postgresql://a:***@h/db"
