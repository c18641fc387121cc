"""Label and field selectors, ported from k8s.io/apimachinery's pkg/labels/selector_test.go
and pkg/fields/selector_test.go (the Go test names kept in ours), plus the API server's
own words for selectors it refuses."""

from __future__ import annotations

import pytest

from webapp.engine.store import fields, labels
from webapp.engine.store.labels import (
    CLOSED_PAR,
    COMMA,
    DOES_NOT_EXIST,
    DOES_NOT_EXIST_TOKEN,
    DOUBLE_EQUALS,
    DOUBLE_EQUALS_TOKEN,
    END_OF_STRING,
    EQUALS,
    EQUALS_TOKEN,
    EXISTS,
    GREATER_THAN,
    GREATER_THAN_TOKEN,
    IDENTIFIER,
    IN,
    IN_TOKEN,
    KEY_AND_OPERATOR,
    LESS_THAN,
    LESS_THAN_TOKEN,
    NOT_EQUALS,
    NOT_EQUALS_TOKEN,
    NOT_IN,
    NOT_IN_TOKEN,
    OPEN_PAR,
    Lexer,
    Parser,
    Requirement,
    Selector,
    SelectorError,
    new_requirement,
)

# -- labels: TestSelectorParse ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"],
)
def test_selector_parse_good(text):
    assert str(labels.parse(text)) == text.replace(" ", "")


@pytest.mark.parametrize("text", ["x=a||y=b", "x==a==b", "!x=a", "x<a"])
def test_selector_parse_bad(text):
    with pytest.raises(SelectorError):
        labels.parse(text)


def test_deterministic_parse():
    assert str(labels.parse("x=a,a=x")) == str(labels.parse("a=x,x=a"))


def test_everything():
    assert Selector().matches({"x": "y"})
    assert Selector().empty()


@pytest.mark.parametrize(
    ("selector", "labelset", "match"),
    [
        ("", {"x": "y"}, True),
        ("x=y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),  # in and notin in exactMatch
        ("x", {"x": "z"}, True),
        ("!x", {"y": "z"}, True),
        ("x>1", {"x": "2"}, True),
        ("x<1", {"x": "0"}, True),
        ("x=z", {}, False),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("x", {"y": "z"}, False),
        ("!x", {"x": "z"}, False),
        ("x>1", {"x": "0"}, False),
        ("x<1", {"x": "2"}, False),
        ("foo=bar", {"foo": "bar", "baz": "blah"}, True),
        ("baz=blah", {"foo": "bar", "baz": "blah"}, True),
        ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
        ("foo=blah", {"foo": "bar", "baz": "blah"}, False),
        ("baz=bar", {"foo": "bar", "baz": "blah"}, False),
        ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    ],
)
def test_selector_matches(selector, labelset, match):
    assert labels.parse(selector).matches(labelset) is match


def test_set_matches():
    labelset = {"foo": "bar", "baz": "blah"}
    for selector in ({}, {"foo": "bar"}, {"baz": "blah"}, {"foo": "bar", "baz": "blah"}):
        assert labels.selector_from_set(selector).matches(labelset)


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("", END_OF_STRING), (",", COMMA), ("notin", NOT_IN_TOKEN), ("in", IN_TOKEN),
        ("=", EQUALS_TOKEN), ("==", DOUBLE_EQUALS_TOKEN), (">", GREATER_THAN_TOKEN),
        ("<", LESS_THAN_TOKEN), ("!", DOES_NOT_EXIST_TOKEN), ("!=", NOT_EQUALS_TOKEN),
        ("(", OPEN_PAR), (")", CLOSED_PAR), ("~", IDENTIFIER), ("||", IDENTIFIER),
    ],
)  # fmt: skip
def test_lexer(text, token):
    got, literal = Lexer(text).lex()
    assert got == token
    assert literal == text


LEXER_SEQUENCES = [
    ("key in ( value )", [IDENTIFIER, IN_TOKEN, OPEN_PAR, IDENTIFIER, CLOSED_PAR]),
    ("key notin ( value )", [IDENTIFIER, NOT_IN_TOKEN, OPEN_PAR, IDENTIFIER, CLOSED_PAR]),
    ("key in ( value1, value2 )",
     [IDENTIFIER, IN_TOKEN, OPEN_PAR, IDENTIFIER, COMMA, IDENTIFIER, CLOSED_PAR]),
    ("key", [IDENTIFIER]),
    ("!key", [DOES_NOT_EXIST_TOKEN, IDENTIFIER]),
    ("()", [OPEN_PAR, CLOSED_PAR]),
    ("x in (),y", [IDENTIFIER, IN_TOKEN, OPEN_PAR, CLOSED_PAR, COMMA, IDENTIFIER]),
    ("== != (), = notin", [DOUBLE_EQUALS_TOKEN, NOT_EQUALS_TOKEN, OPEN_PAR, CLOSED_PAR, COMMA,
                           EQUALS_TOKEN, NOT_IN_TOKEN]),
    ("key>2", [IDENTIFIER, GREATER_THAN_TOKEN, IDENTIFIER]),
    ("key<1", [IDENTIFIER, LESS_THAN_TOKEN, IDENTIFIER]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "tokens"), LEXER_SEQUENCES)
def test_lexer_sequence(text, tokens):
    lexer = Lexer(text)
    found = []
    while (token := lexer.lex()[0]) != END_OF_STRING:
        found.append(token)
    assert found == tokens


@pytest.mark.parametrize(("text", "tokens"), [*LEXER_SEQUENCES, ("", [])])
def test_parser_lookahead(text, tokens):
    parser = Parser(text)
    parser.scan()
    assert [t for t, _ in parser.items] == [*tokens, END_OF_STRING]
    while True:
        ahead = parser.lookahead(KEY_AND_OPERATOR)
        taken = parser.consume(KEY_AND_OPERATOR)
        if ahead[0] == END_OF_STRING:
            break
        assert ahead == taken


@pytest.mark.parametrize(
    ("key", "op", "values", "success"),
    [
        ("x", IN, [], False),
        ("x", NOT_IN, [], False),
        ("x", IN, ["foo"], True),
        ("x", NOT_IN, ["foo"], True),
        ("x", EXISTS, [], True),
        ("x", DOES_NOT_EXIST, [], True),
        ("1foo", IN, ["bar"], True),
        ("1234", IN, ["bar"], True),
        ("y", GREATER_THAN, ["1"], True),
        ("z", LESS_THAN, ["6"], True),
        ("foo", GREATER_THAN, ["bar"], False),
        ("barz", LESS_THAN, ["blah"], False),
        ("a" * 254, EXISTS, [], False),  # breaks DNS rule that len(key) <= 253
    ],
)
def test_requirement_constructor(key, op, values, success):
    if success:
        new_requirement(key, op, values)
    else:
        with pytest.raises(SelectorError):
            new_requirement(key, op, values)


def _req(key, op, values=()):
    return new_requirement(key, op, sorted(values))


@pytest.mark.parametrize(
    ("requirements", "out"),
    [
        ([_req("x", IN, ["abc", "def"]), _req("y", NOT_IN, ["jkl"]), _req("z", EXISTS)],
         "x in (abc,def),y notin (jkl),z"),
        ([_req("x", NOT_IN, ["abc", "def"]), _req("y", NOT_EQUALS, ["jkl"]),
          _req("z", DOES_NOT_EXIST)], "x notin (abc,def),y!=jkl,!z"),
        ([_req("x", NOT_IN, ["abc"]), _req("y", IN, ["jkl", "mno"]), _req("z", NOT_IN, [""])],
         "x notin (abc),y in (jkl,mno),z notin ()"),
        ([_req("x", EQUALS, ["abc"]), _req("y", DOUBLE_EQUALS, ["jkl"]),
          _req("z", NOT_EQUALS, ["a"]), _req("z", EXISTS)], "x=abc,y==jkl,z!=a,z"),
        ([_req("x", GREATER_THAN, ["2"]), _req("y", LESS_THAN, ["8"]), _req("z", EXISTS)],
         "x>2,y<8,z"),
    ],
)  # fmt: skip
def test_to_string(requirements, out):
    assert str(Selector(requirements)) == out


@pytest.mark.parametrize(
    ("labelset", "requirements", "match"),
    [
        ({"x": "foo", "y": "baz"}, [_req("x", IN, ["foo"]), _req("y", NOT_IN, ["alpha"])], True),
        ({"x": "foo", "y": "baz"}, [_req("x", IN, ["foo"]), _req("y", IN, ["alpha"])], False),
        ({"y": ""}, [_req("x", NOT_IN, [""]), _req("y", EXISTS)], True),
        ({"y": ""}, [_req("x", DOES_NOT_EXIST), _req("y", EXISTS)], True),
        ({"y": ""}, [_req("x", NOT_IN, [""]), _req("y", DOES_NOT_EXIST)], False),
        ({"y": "baz"}, [_req("x", IN, [""])], False),
        ({"z": "2"}, [_req("z", GREATER_THAN, ["1"])], True),
        ({"z": "v2"}, [_req("z", GREATER_THAN, ["1"])], False),
    ],
)
def test_requirement_selector_matching(labelset, requirements, match):
    assert Selector(requirements).matches(labelset) is match


@pytest.mark.parametrize(
    ("text", "requirements", "valid"),
    [
        ("", [], True),
        ("\rx", [Requirement("x", EXISTS, ())], True),
        ("this-is-a-dns.domain.com/key-with-dash",
         [Requirement("this-is-a-dns.domain.com/key-with-dash", EXISTS, ())], True),
        ("this-is-another-dns.domain.com/key-with-dash in (so,what)",
         [Requirement("this-is-another-dns.domain.com/key-with-dash", IN, ("so", "what"))], True),
        ("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
         [Requirement("0.1.2.domain/99", NOT_IN, ("10.10.100.1", "tick.tack.clock"))], True),
        ("foo  in\t (abc)", [Requirement("foo", IN, ("abc",))], True),
        ("x notin\n (abc)", [Requirement("x", NOT_IN, ("abc",))], True),
        ("x  notin\t\t\t(abc,def)", [Requirement("x", NOT_IN, ("abc", "def"))], True),
        ("x in (abc,def)", [Requirement("x", IN, ("abc", "def"))], True),
        ("x in (abc,)", [Requirement("x", IN, ("", "abc"))], True),
        ("x in ()", [Requirement("x", IN, ("",))], True),
        ("x notin (abc,,def),bar,z in (),w",
         [Requirement("bar", EXISTS, ()), Requirement("w", EXISTS, ()),
          Requirement("x", NOT_IN, ("", "abc", "def")), Requirement("z", IN, ("",))], True),
        ("x,y in (a)", [Requirement("x", EXISTS, ()), Requirement("y", IN, ("a",))], True),
        ("x=a", [Requirement("x", EQUALS, ("a",))], True),
        ("x>1", [Requirement("x", GREATER_THAN, ("1",))], True),
        ("x<7", [Requirement("x", LESS_THAN, ("7",))], True),
        ("x=a,y!=b", [Requirement("x", EQUALS, ("a",)), Requirement("y", NOT_EQUALS, ("b",))], True),
        ("x=a,y!=b,z in (h,i,j)",
         [Requirement("x", EQUALS, ("a",)), Requirement("y", NOT_EQUALS, ("b",)),
          Requirement("z", IN, ("h", "i", "j"))], True),
        ("x=a||y=b", None, False),
        ("x,,y", None, False),
        (",x,y", None, False),
        ("x nott in (y)", None, False),
        ("x notin ( )", [Requirement("x", NOT_IN, ("",))], True),
        ("x notin (, a)", [Requirement("x", NOT_IN, ("", "a"))], True),
        ("a in (xyz),", None, False),
        ("a in (xyz)b notin ()", None, False),
        ("a ", [Requirement("a", EXISTS, ())], True),
        ("a in (x,y,notin, z,in)", [Requirement("a", IN, ("in", "notin", "x", "y", "z"))], True),
        ("a in (xyz abc)", None, False),
        ("a notin(", None, False),
        ("a (", None, False),
        ("(", None, False),
    ],
)  # fmt: skip
def test_set_selector_parser(text, requirements, valid):
    if not valid:
        with pytest.raises(SelectorError):
            labels.parse(text)
        return
    assert labels.parse(text).requirements == tuple(sorted(requirements, key=lambda r: r.key))


# -- labels: the API server's messages ----------------------------------------------------

KEY_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
    "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("-ltier=postgres", f'unable to parse requirement: <nil>: Invalid value: "-ltier": {KEY_RULE}'),
        ("app:web", f'unable to parse requirement: <nil>: Invalid value: "app:web": {KEY_RULE}'),
        ("a in", "unable to parse requirement: found '' expected: '('"),
        ("x in (a", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("x,", "found '', expected: identifier after ','"),
        ("=x", "found '=', expected: !, identifier, or 'end of string'"),
        ("x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": "
                "for 'Gt', 'Lt' operators, the value must be an integer"),
        ("x ~ y", "unable to parse requirement: found '~', expected: in, notin, =, ==, !=, gt, lt"),
    ],
)  # fmt: skip
def test_label_selector_errors_are_the_api_servers(text, message):
    with pytest.raises(SelectorError) as caught:
        labels.parse(text)
    assert str(caught.value) == message


# -- fields -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selector", "terms"),
    [
        ("a", ["a"]),
        ("a=avalue", ["a=avalue"]),
        ("a=avalue,b=bvalue", ["a=avalue", "b=bvalue"]),
        ("a=avalue,b==bvalue,c!=cvalue", ["a=avalue", "b==bvalue", "c!=cvalue"]),
        ("", []),
        ("a=a,", ["a=a", ""]),
        (",a=a", ["", "a=a"]),
        ("k=\\,,k2=v2", ["k=\\,", "k2=v2"]),
        ("k=\\\\,k2=v2", ["k=\\\\", "k2=v2"]),
        ("k=\\\\\\,,k2=v2", ["k=\\\\\\,", "k2=v2"]),
        ("k=\\a\\b\\", ["k=\\a\\b\\"]),
        ("k=\\", ["k=\\"]),
        ("함=수,목=록", ["함=수", "목=록"]),
    ],
)
def test_split_terms(selector, terms):
    assert fields.split_terms(selector) == terms


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("a=value", ("a", "=", "value")),
        ("b==value", ("b", "==", "value")),
        ("c!=value", ("c", "!=", "value")),
        ("", None),
        ("a", None),
        ("k=\\,", ("k", "=", "\\,")),
        ("k=\\=", ("k", "=", "\\=")),
        ("k=\\\\\\a\\b\\=\\,\\", ("k", "=", "\\\\\\a\\b\\=\\,\\")),
        ("함=수", ("함", "=", "수")),
    ],
)
def test_split_term(term, expected):
    assert fields.split_term(term) == expected


@pytest.mark.parametrize(
    ("unescaped", "escaped"),
    [("", ""), ("a", "a"), ("=", "\\="), (",", "\\,"), ("\\", "\\\\"),
     ("\\=\\,\\", "\\\\\\=\\\\\\,\\\\")],
)  # fmt: skip
def test_escape_value(unescaped, escaped):
    assert fields.escape_value(unescaped) == escaped
    assert fields.unescape_value(escaped) == unescaped


@pytest.mark.parametrize("value", ["\\", "\\\\\\", "\\a"])
def test_escape_value_invalid(value):
    with pytest.raises(SelectorError, match="invalid escape sequence"):
        fields.unescape_value(value)


@pytest.mark.parametrize("text", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=a||y\\=b", "x=a\\=\\=b"])
def test_fields_selector_parse_good(text):
    assert str(fields.parse_selector(text)) == text


@pytest.mark.parametrize("text", ["x=a||y=b", "x==a==b", "x=a,b", "x in (a)", "x in (a,b,c)", "x"])
def test_fields_selector_parse_bad(text):
    with pytest.raises(SelectorError):
        fields.parse_selector(text)


def test_fields_deterministic_parse():
    assert str(fields.parse_selector("x=a,a=x")) == str(fields.parse_selector("a=x,x=a"))


@pytest.mark.parametrize(
    ("selector", "fieldset", "match"),
    [
        ("", {"x": "y"}, True),
        ("x=y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("foo=bar", {"foo": "bar", "baz": "blah", "complex": "=value\\,\\"}, True),
        ("foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\",
         {"foo": "bar", "baz": "blah", "complex": "=value\\,\\"}, True),
        ("foo=blah", {"foo": "bar", "baz": "blah"}, False),
        ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    ],
)  # fmt: skip
def test_fields_selector_matches(selector, fieldset, match):
    assert fields.parse_selector(selector).matches_set(fieldset) is match


@pytest.mark.parametrize(
    ("kind", "selector", "message"),
    [
        ("Pod", "spec.foo=x", "field label not supported: spec.foo"),
        ("Node", "metadata.namespace=x", "field label not supported: metadata.namespace"),
        ("Deployment", "foo.bar=baz",
         '"foo.bar" is not a known field selector: only "metadata.name", "metadata.namespace"'),
        ("Pod", "status.phase", "invalid selector: 'status.phase'; can't understand 'status.phase'"),
    ],
)  # fmt: skip
def test_field_label_conversion_errors(kind, selector, message):
    with pytest.raises(SelectorError) as caught:
        fields.parse(selector, kind)
    assert str(caught.value) == message


def test_pod_fields_select_by_node_and_phase():
    pod = {"metadata": {"name": "web", "namespace": "default"},
           "spec": {"nodeName": "node-1", "restartPolicy": "Always"},
           "status": {"phase": "Running", "podIPs": [{"ip": "10.244.1.5"}]}}  # fmt: skip
    assert fields.parse("spec.nodeName=node-1,status.phase!=Pending", "Pod").matches(pod)
    assert fields.parse("status.podIP=10.244.1.5,spec.hostNetwork=false", "Pod").matches(pod)
    assert not fields.parse("status.phase=Pending", "Pod").matches(pod)
