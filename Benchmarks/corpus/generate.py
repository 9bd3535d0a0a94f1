#!/usr/bin/env python3
"""Writes a corpus of provider descriptors of varied shapes, for benchmarking `oauthflow lint` on files the
project's own descriptors do not resemble.

Usage: python3 Benchmarks/corpus/generate.py OUT_DIR [COUNT] [--seed N] [--invalid N] [--warnings RATE]

COUNT (default 1,000) descriptors go to OUT_DIR as ID.yaml, the same files for the same seed (default 47).
Every one is valid and lints clean (`oauthflow lint OUT_DIR` finds nothing) unless --invalid N is given: then N
of them, spread evenly, each carry one error lint reports (an unknown key, a wrong type, an undeclared
variable, an http endpoint, a reserved parameter, a literal secret, a broken pattern or a malformed URL).

--warnings RATE writes the same files with warnings added, as a stranger's descriptors draw them: each file
takes up to three, RATE a file on average (0.8 gives about 800 over 1,000 files), each one warning of a common
rule: `offline_access` without `prompt=consent` (offline_access_consent), a variable nothing uses
(unused_variable), `localhost` as the loopback host (localhost_loopback), a scope listed twice (scope_syntax),
a device endpoint without the device grant (device_grant), logout settings that do nothing or turn a check off
(logout), a DPoP setting while DPoP is off (pushed_and_dpop), an `extra_call` no source reads (profile_sources)
and authorization details sent with `pushed: never` (authorization_details_types). The warnings are drawn from
a random stream of their own and each file is written from the state the clean file was, so the files are
those of the clean corpus of the same seed but for the lines the warnings add or change.

Where RegistryBenchmark and compare.py write one template 1,000 times, each file here draws its own shape:
- sections present or absent, in a shuffled order, and keys in a shuffled order within each mapping;
- block or flow style for each mapping and list (`{a: b}`, `[a, b]`), flow collections nested and spread over
  several lines, list items indented under their key or not, indentation of 2, 3 or 4 spaces;
- scalars plain, single-quoted (with `''`), double-quoted (with `\\u`, `\\t`, `\\"` escapes), and literal
  or folded block scalars (`|`, `|-`, `>`, `>+`) for descriptions and conditions;
- quoted keys (`"token":`, `'userinfo':`), explicit tags (`!!str`, `!!bool`, `!!int`), `---` and `...`;
- anchors and aliases (a variable's definition, header maps and scope lists shared between sections);
- comments: whole-line comment blocks, comments after values, and long licence-style headers;
- text in many scripts (Latin with accents, Greek, Cyrillic, CJK, Arabic, emoji), and long strings;
- many scopes (up to 60), many variables (up to 12, in hosts and paths), parameters, headers, resources (up
  to 40), profile sources and templates, grant types, logout, revocation, device and access-token sections;
- a byte order mark on some files, CRLF line ends on others.
"""
import random
import sys
from pathlib import Path

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec "
         "romeo sierra tango uniform victor whiskey xray yankee zulu orbit nimbus cobalt ember falcon garnet harbor "
         "iris jasper lumen meadow nova onyx prism quartz raven summit tidal umber vertex willow zephyr").split()
TEXTS = [
    "Tenant name", "Région du locataire", "Ελληνικό όνομα μισθωτή", "Имя арендатора", "テナント名", "租户名称",
    "اسم المستأجر", "Mandant (Österreich, Schweiz)", "Workspace 🚀 identifier", "Naïve café résumé — “quoted”",
    "한국어 테넌트", "Ñandú región", "Zażółć gęślą jaźń", "Čeština: název", "Tiếng Việt: tên", "हिन्दी नाम",
]
LONG = ("The provider issues refresh tokens only to applications whose administrator switched on offline access in "
        "the console, and only for users who consented to it once; a revoked consent ends every refresh token issued "
        "under it, and tokens unused for ninety days expire on their own. Rotation is on by default and a reused "
        "refresh token revokes the whole family, as RFC 9700 recommends for public clients. ")
SCOPE_STYLES = ["{w}", "{w}:read", "{w}:write", "{w}.readonly", "https://api.{h}.example/{w}", "{w}_{v}", "read:{w}", "{w}/{v}"]
HEADER_NAMES = ["Accept", "User-Agent", "X-Api-Version", "X-Tenant", "Accept-Language", "X-Request-Source", "Prefer"]
ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
AUTH_METHODS = ["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "tls_client_auth",
                "self_signed_tls_client_auth"]
PATTERNS = [  # (pattern, examples that match it)
    ("^[a-z0-9-]+$", ["acme", "big-corp", "t1"]),
    ("^[A-Za-z0-9._-]{1,63}$", ["Main.Realm", "r_1", "prod"]),
    ("^(eu|us|ap)-[a-z]+-[0-9]$", ["eu-west-1", "us-east-2"]),
    ("^[a-f0-9]{8}(-[a-f0-9]{4}){3}-[a-f0-9]{12}$", ["0f8fad5b-d9cb-469f-a165-70867728950e"]),
    ("^\\w+$", ["workspace_1", "Demo"]),
    ("^(?:dev|test|prod)(?:-[0-9]{1,3})?$", ["prod", "dev-12"]),
    ("^[a-z]{2,8}$", ["us", "europe"]),
    ("^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$", ["Acme-Corp", "x"]),
]


class Writer:
    """Emits one YAML document, choosing a style for each collection and scalar."""

    def __init__(self, rng, indent):
        self.rng = rng
        self.indent = indent
        self.lines = []
        self.defined = set()

    def resolve(self, value):
        """A shared value as an anchor the first time, an alias after."""
        if not isinstance(value, Shared):
            return value
        if value.name in self.defined:
            return Alias(value.name)
        self.defined.add(value.name)
        return Anchored(value.name, value.value)

    # Scalars

    def scalar(self, value, key_like=False):
        """A scalar in a style chosen at random among those that read back as the same string."""
        rng = self.rng
        if isinstance(value, Raw):
            return value.text
        if isinstance(value, bool):
            return rng.choice(["true", "false"] if False else (["true", "True", "TRUE", "yes", "on", "!!bool true"] if value
                                                                 else ["false", "False", "no", "off", "!!bool false"]))
        if isinstance(value, int):
            return rng.choice([str(value), str(value), f"!!int {value}"])
        text = str(value)
        plain_ok = self.plain_safe(text)
        choice = rng.random()
        if plain_ok and choice < 0.55:
            return text
        if choice < 0.8 and "\n" not in text:
            return "'" + text.replace("'", "''") + "'"
        return self.double_quoted(text)

    def double_quoted(self, text):
        out = []
        for ch in text:
            code = ord(ch)
            if ch == '"':
                out.append('\\"')
            elif ch == "\\":
                out.append("\\\\")
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\t":
                out.append("\\t")
            elif code > 0x7F and code <= 0xFFFF and self.rng.random() < 0.3:
                out.append(f"\\u{code:04x}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'

    @staticmethod
    def plain_safe(text):
        if not text or text != text.strip():
            return False
        if text[0] in "-?:,[]{}#&*!|>'\"%@`" or text.lower() in {
                "yes", "no", "true", "false", "on", "off", "null", "~", "y", "n"}:
            return False
        if ": " in text or " #" in text or text.endswith(":") or "\t" in text or "\n" in text:
            return False
        if any(ch in text for ch in ",[]{}"):  # safe in block context, not in flow: keep it simple
            return False
        # Numbers, dates and times (YAML 1.1 types them): quoted.
        return not (text[0].isdigit() or text[0] in "+-.")

    def key(self, name):
        roll = self.rng.random()
        if roll < 0.08:
            return f'"{name}"'
        if roll < 0.12:
            return f"'{name}'"
        return name

    # Collections

    def flow(self, value):
        value = self.resolve(value)
        if isinstance(value, Anchored):
            return f"&{value.name} " + self.flow(value.value)
        if isinstance(value, Alias):
            return f"*{value.name}"
        if isinstance(value, dict):
            items = list(value.items())
            return "{" + ", ".join(f"{self.key(k)}: {self.flow(v)}" for k, v in items) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self.flow(v) for v in value) + "]"
        return self.scalar(value)

    def can_flow(self, value):
        if isinstance(value, Block):
            return False
        if isinstance(value, (Anchored, Shared)):
            return self.can_flow(value.value)
        if isinstance(value, dict):
            return all(self.can_flow(v) for v in value.values())
        if isinstance(value, list):
            return all(self.can_flow(v) for v in value)
        return True

    def emit(self, value, depth, prefix):
        """Writes `prefix` (a key and colon, or a dash) followed by value at depth."""
        pad = " " * (self.indent * depth)
        rng = self.rng
        value = self.resolve(value)
        anchor = ""
        if isinstance(value, Anchored):
            anchor = f" &{value.name}"
            value = value.value
        if isinstance(value, Alias):
            self.lines.append(f"{pad}{prefix} *{value.name}{self.trailing_comment()}")
            return
        if isinstance(value, Block):
            self.lines.append(f"{pad}{prefix}{anchor} {value.indicator}")
            inner = " " * (self.indent * (depth + 1))
            for line in value.text.split("\n"):
                self.lines.append(f"{inner}{line}" if line else "")
            return
        if isinstance(value, (dict, list)) and (not value or (self.can_flow(value) and rng.random() < 0.3)):
            text = self.flow(value)
            if len(text) > 100 and isinstance(value, list) and rng.random() < 0.5:
                # A flow list spread over several lines.
                self.lines.append(f"{pad}{prefix}{anchor} [")
                inner = " " * (self.indent * (depth + 1))
                for index, item in enumerate(value):
                    self.lines.append(f"{inner}{self.flow(item)}{',' if index < len(value) - 1 else ''}")
                self.lines.append(f"{pad}]")
            else:
                self.lines.append(f"{pad}{prefix}{anchor} {text}{self.trailing_comment()}")
            return
        if isinstance(value, dict):
            self.lines.append(f"{pad}{prefix}{anchor}{self.trailing_comment()}")
            self.mapping(value, depth + 1)
            return
        if isinstance(value, list):
            self.lines.append(f"{pad}{prefix}{anchor}")
            # Items at the key's own indentation half the time (both are YAML).
            item_depth = depth + 1 if rng.random() < 0.5 else depth
            for item in value:
                self.item(item, item_depth)
            return
        self.lines.append(f"{pad}{prefix}{anchor} {self.scalar(value)}{self.trailing_comment()}")

    def item(self, item, depth):
        pad = " " * (self.indent * depth)
        if isinstance(item, dict) and item and not isinstance(item, Anchored) and self.rng.random() < 0.7:
            # "- key: value" with the rest of the mapping under it.
            entries = list(item.items())
            first_key, first_value = entries[0]
            if isinstance(first_value, (dict, list, Block, Anchored)):
                self.emit(item, depth, "-")
                return
            self.lines.append(f"{pad}- {self.key(first_key)}: {self.scalar(first_value)}")
            inner = " " * (self.indent * depth + 2)
            sub = Writer(self.rng, self.indent)
            sub.defined = self.defined
            sub.mapping(dict(entries[1:]), 0)
            self.lines.extend(inner + line if line else line for line in sub.lines)
            return
        self.emit(item, depth, "-")

    def mapping(self, value, depth):
        for name, item in value.items():
            if self.rng.random() < 0.07:
                self.lines.append(" " * (self.indent * depth) + "# " + self.rng.choice(COMMENTS))
            self.emit(item, depth, f"{self.key(name)}:")

    def trailing_comment(self):
        return f"  # {self.rng.choice(COMMENTS)}" if self.rng.random() < 0.06 else ""


COMMENTS = [
    "see the provider's developer documentation", "checked against the discovery document", "RFC 6749 §3.1",
    "à vérifier auprès du fournisseur", "注意: 本番環境のみ", "kept for older clients", "TODO: ask support",
    "the console calls this the 'application id'", "ändert sich je Region", "—", "values as the admin UI shows them",
]


class Raw:
    def __init__(self, text):
        self.text = text


class Block:
    def __init__(self, indicator, text):
        self.indicator = indicator
        self.text = text


class Anchored:
    def __init__(self, name, value):
        self.name = name
        self.value = value


class Alias:
    def __init__(self, name):
        self.name = name


class Shared:
    """A value written in two places: anchored where the document first reaches it, an alias after."""

    def __init__(self, name, value):
        self.name = name
        self.value = value


def shuffled(rng, mapping, keep_first=()):
    """The mapping's keys in a random order (those in keep_first stay first)."""
    first = [(k, mapping[k]) for k in keep_first if k in mapping]
    rest = [(k, v) for k, v in mapping.items() if k not in keep_first]
    rng.shuffle(rest)
    return dict(first + rest)


def words(rng, count):
    return [rng.choice(WORDS) for _ in range(count)]


def text_value(rng, long=False):
    base = rng.choice(TEXTS)
    if long or rng.random() < 0.15:
        base += ". " + LONG * rng.randint(1, 2)
        base = base.strip()
    return base


def prose(rng):
    """A description or condition: a plain sentence, or a block scalar."""
    text = text_value(rng, long=rng.random() < 0.25)
    roll = rng.random()
    if roll < 0.2:
        wrapped = wrap(text, rng.randint(50, 90))
        return Block(rng.choice(["|", "|-"]), "\n".join(wrapped))
    if roll < 0.4:
        wrapped = wrap(text, rng.randint(50, 90))
        return Block(rng.choice([">", ">-"]), "\n".join(wrapped))
    return text


def wrap(text, width):
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def descriptor(rng, index, invalid_kind=None, context=None):
    """One descriptor as a dict; `context`, when given, receives what --warnings needs (the base URL, names used)."""
    words_used = set()

    def fresh():
        while True:
            word = rng.choice(WORDS) + ("" if rng.random() < 0.6 else str(rng.randint(2, 99)))
            if word not in words_used:
                words_used.add(word)
                return word

    ident = f"{rng.choice(WORDS)}-{index:05d}" + rng.choice(["", "_x", "-idp", "-sso"])
    protocol = "oidc" if rng.random() < 0.7 else "oauth2"
    # Variables: some in the host, some in the path.
    variable_count = rng.choice([0, 0, 1, 2, 3, 4, 6, 8, 12])
    variables = {}
    host_vars, path_vars = [], []
    for number in range(variable_count):
        name = f"{fresh()}_{number}" if rng.random() < 0.3 else fresh()
        name = name.replace("-", "_")
        definition = {"description": prose(rng)}
        roll = rng.random()
        if roll < 0.5:
            pattern, examples = rng.choice(PATTERNS)
            definition["pattern"] = pattern
            definition["example"] = rng.choice(examples)
            if rng.random() < 0.3:
                definition["default"] = rng.choice(examples)
        elif roll < 0.8:
            values = sorted({rng.choice(WORDS) for _ in range(rng.randint(2, 6))})
            definition["enum"] = values
            if rng.random() < 0.5:
                definition["default"] = rng.choice(values)
            if rng.random() < 0.5:
                definition["example"] = rng.choice(values)
        else:
            definition["example"] = rng.choice(["demo", "acme", "main"])
        variables[name] = shuffled(rng, definition)
        (host_vars if rng.random() < 0.5 else path_vars).append(name)

    host = ".".join([f"{{{v}}}" for v in host_vars] + [rng.choice(["login", "auth", "id", "sso", "accounts"]),
                                                          f"{rng.choice(WORDS)}{index}", rng.choice(["example", "test", "invalid"])])
    if rng.random() < 0.1:
        host += f":{rng.randint(1024, 65535)}"
    base_path = "".join(f"/{{{v}}}" for v in path_vars)
    if rng.random() < 0.4:
        base_path = f"/{rng.choice(WORDS)}" + base_path
    base = f"https://{host}{base_path}"
    if context is not None:
        context["base"] = base
        context["words_used"] = words_used
    issuer = base + rng.choice(["", "/", "/oauth2", "/realms/main"]) if rng.random() < 0.85 else None

    endpoint_names = ["authorization", "token", "userinfo", "revocation", "introspection", "end_session",
                      "device_authorization", "jwks", "pushed_authorization"]
    paths = {"authorization": "/authorize", "token": "/oauth/token", "userinfo": "/userinfo", "revocation": "/revoke",
             "introspection": "/introspect", "end_session": "/logout", "device_authorization": "/device/code",
             "jwks": "/.well-known/jwks.json", "pushed_authorization": "/par"}
    discovery_mode = rng.choice(["oidc", "rfc8414", "none"]) if issuer else "none"
    endpoints = {}
    for name in endpoint_names:
        if name in ("authorization", "token") and discovery_mode == "none" or rng.random() < 0.5:
            endpoints[name] = base + paths[name] + ("" if rng.random() < 0.8 else f"?v={rng.randint(1, 3)}")
    if rng.random() < 0.1 and "token" in endpoints:
        endpoints["refresh"] = base + "/oauth/refresh"

    has_keys = "jwks" in endpoints or discovery_mode != "none"
    has_introspection = "introspection" in endpoints or discovery_mode != "none"

    doc = {"schema_version": 1, "id": ident}
    doc["display_name"] = rng.choice(TEXTS) + f" {index}" if rng.random() < 0.6 else f"{rng.choice(WORDS).title()} Identity {index}"
    doc["protocol"] = protocol
    if rng.random() < 0.7:
        doc["docs_url"] = f"https://docs.{rng.choice(WORDS)}.example/{'/'.join(words(rng, rng.randint(1, 4)))}"
    if issuer:
        doc["issuer"] = issuer
    if discovery_mode != "none" or rng.random() < 0.3:
        discovery = {"mode": discovery_mode}
        if discovery_mode != "none" and rng.random() < 0.2:
            discovery["url"] = base + "/.well-known/openid-configuration"
        if rng.random() < 0.2:
            discovery["lacks"] = rng.sample(["revocation", "end_session"], rng.randint(1, 2))
        doc["discovery"] = shuffled(rng, discovery)
    if variables:
        names = list(variables)
        if len(names) >= 2 and rng.random() < 0.3:
            # Two variables share one definition through an anchor.
            shared = variables[names[0]]
            variables[names[0]] = Shared(f"var{index}", shared)
            variables[names[1]] = Shared(f"var{index}", shared)
        doc["variables"] = variables
    doc["endpoints"] = shuffled(rng, endpoints)

    scope_words = set()
    default_scopes = []
    if protocol == "oidc":
        default_scopes.append("openid")
        default_scopes += rng.sample(["profile", "email", "address", "phone"], rng.randint(0, 4))
    for _ in range(rng.choice([0, 1, 2, 3, 5, 8, 20, 40, 60])):
        scope = rng.choice(SCOPE_STYLES).format(w=rng.choice(WORDS), v=rng.choice(WORDS), h=rng.choice(WORDS))
        if scope not in scope_words and scope not in default_scopes:
            scope_words.add(scope)
            default_scopes.append(scope)
    scopes = {}
    if default_scopes or rng.random() < 0.5:
        scopes["default"] = default_scopes
    if rng.random() < 0.5:
        offline = {"scopes": ["offline_access"]}
        if rng.random() < 0.5:
            offline["params"] = {"prompt": "consent"}
        else:
            offline["without_consent_prompt"] = True
        if rng.random() < 0.3:
            offline["condition"] = prose(rng)
        scopes["offline"] = shuffled(rng, offline)
    elif rng.random() < 0.3:
        scopes["offline"] = {"params": {"access_type": "offline"}}
    if rng.random() < 0.15:
        scopes["separator"] = rng.choice([" ", ","])
        if scopes["separator"] == ",":
            scopes["default"] = [s for s in scopes.get("default", []) if "," not in s]
    if scopes:
        doc["scopes"] = shuffled(rng, scopes)

    if rng.random() < 0.6:
        authorization = {}
        if rng.random() < 0.5:
            authorization["response_mode"] = rng.choice(["query", "form_post"])
        if rng.random() < 0.6:
            authorization["extra_params"] = {f"x_{fresh()}": rng.choice([rng.choice(WORDS), rng.choice(TEXTS), "1"])
                                             for _ in range(rng.randint(1, 8))}
        if rng.random() < 0.3:
            authorization["pushed"] = rng.choice(["if_supported", "never"])
        if authorization:
            doc["authorization"] = shuffled(rng, authorization)

    grants = ["authorization_code", "refresh_token"]
    if rng.random() < 0.3:
        grants.append("client_credentials")
    if "device_authorization" in endpoints or rng.random() < 0.2 and discovery_mode != "none":
        grants.append("urn:ietf:params:oauth:grant-type:device_code")
    if rng.random() < 0.15:
        grants.append("urn:ietf:params:oauth:grant-type:token-exchange")
    if rng.random() < 0.6 or "device_authorization" in endpoints:
        doc["grant_types"] = grants

    shared_headers = None
    if rng.random() < 0.5:
        token_request = {"body_encoding": rng.choice(["form", "json"])}
        if rng.random() < 0.5:
            headers = {name: rng.choice(["application/json", f"{rng.choice(WORDS)}/1.{rng.randint(0, 9)}", "2024-01-01", "fr-CH, fr;q=0.9"])
                       for name in rng.sample(HEADER_NAMES, rng.randint(1, 4))}
            if rng.random() < 0.5:
                shared_headers = f"headers{index}"
                token_request["headers"] = Shared(shared_headers, headers)
            else:
                token_request["headers"] = headers
        if rng.random() < 0.3:
            token_request["extra_params"] = {f"x_{fresh()}": rng.choice(["1", "true", rng.choice(WORDS)]) for _ in range(rng.randint(1, 3))}
        doc["token_request"] = shuffled(rng, token_request)

    public = rng.random() < 0.5
    if rng.random() < 0.8:
        if public and rng.random() < 0.5:
            doc["client_auth"] = {"method": "none"}
        else:
            methods = (["none"] if public else []) + rng.sample(AUTH_METHODS, rng.randint(1, len(AUTH_METHODS)))
            client_auth = {"methods": methods}
            if any(m in methods for m in ("client_secret_jwt", "private_key_jwt")) and rng.random() < 0.5:
                client_auth["assertion_audience"] = rng.choice(["issuer", "token_endpoint"])
            doc["client_auth"] = shuffled(rng, client_auth)

    if rng.random() < 0.3:
        doc["token_response"] = shuffled(rng, {"format": rng.choice(["json", "form", "auto"]),
                                               **({"default_token_type": "Bearer"} if rng.random() < 0.4 else {})})

    has_userinfo = "userinfo" in endpoints or discovery_mode != "none"
    if has_userinfo and rng.random() < 0.4:
        userinfo = {"method": rng.choice(["GET", "POST"])}
        if shared_headers and rng.random() < 0.7:
            userinfo["headers"] = Shared(shared_headers, doc["token_request"]["headers"].value)
        elif rng.random() < 0.4:
            userinfo["headers"] = {"Accept": "application/json"}
        doc["userinfo"] = shuffled(rng, userinfo)

    security = {}
    if rng.random() < 0.8:
        security["pkce"] = "required" if public or rng.random() < 0.7 else "supported"
    if rng.random() < 0.4:
        security["pkce_method"] = "S256"
    if rng.random() < 0.5:
        security["state"] = True
    if protocol == "oidc" and rng.random() < 0.5:
        security["nonce"] = True
    if not issuer:
        security["iss_parameter"] = "absent"
    elif rng.random() < 0.6:
        security["iss_parameter"] = rng.choice(["required", "if_present"])
    if protocol == "oidc" and rng.random() < 0.5:
        security["id_token_algs"] = rng.sample(ALGS, rng.randint(1, 5))
    if issuer and rng.random() < 0.15:
        security["issuer_aliases"] = [f"https://alias{n}.{rng.choice(WORDS)}.example" for n in range(rng.randint(1, 3))]
    if rng.random() < 0.2:
        security["dpop"] = rng.choice(["never", "if_supported"])
    if security:
        doc["security"] = shuffled(rng, security)

    redirect = {}
    if rng.random() < 0.8:
        loopback = {"host": rng.choice(["127.0.0.1", "[::1]"])}
        loopback["port"] = rng.choice(["ephemeral", rng.randint(1024, 65535)])
        loopback["path"] = "/" + "/".join(words(rng, rng.randint(1, 3)))
        redirect["loopback"] = shuffled(rng, loopback)
    if rng.random() < 0.3:
        redirect["private_use_scheme"] = f"com.{rng.choice(WORDS)}.{rng.choice(WORDS)}{index}"
    if redirect:
        doc["redirect"] = shuffled(rng, redirect)

    if rng.random() < 0.5:
        granted = [s for s in default_scopes] or ["openid"]
        resources = []
        for number in range(rng.choice([1, 2, 3, 5, 10, 20, 40])):
            resource = {"scope": rng.choice(granted), "title": rng.choice(TEXTS) + f" {number}",
                        "url": f"https://api{number}.{rng.choice(WORDS)}.example" + base_path + f"/{rng.choice(WORDS)}"}
            resources.append(shuffled(rng, resource))
        doc["resources"] = resources

    if rng.random() < 0.4:
        profile = {}
        id_sources = ["id_token.sub"] if protocol == "oidc" else []
        user_sources = ["userinfo.sub", "userinfo.id", "userinfo.data[0].id", 'userinfo["https://example.com/uid"]'] if has_userinfo else []
        if id_sources or user_sources:
            profile["subject"] = (id_sources + user_sources)[: rng.randint(1, 3)] or id_sources
        if has_userinfo:
            profile["name"] = rng.choice([["userinfo.name"], ["userinfo.given_name + userinfo.family_name"],
                                          ["userinfo.profile.display_name", "userinfo.login"]])
            if rng.random() < 0.5:
                profile["picture"] = ["https://cdn.example.com/avatars/{userinfo.id}/{userinfo.avatar}.png"]
            if rng.random() < 0.5:
                profile["email_verified"] = [rng.choice(["=true", "=false", "userinfo.email_verified"])]
        if protocol == "oidc" and rng.random() < 0.5:
            profile["email"] = ["id_token.email"] + (["userinfo.email"] if has_userinfo else [])
        if rng.random() < 0.3:
            profile["extra_call"] = shuffled(rng, {"url": f"https://api.{rng.choice(WORDS)}.example{base_path}/user/emails",
                                                   **({"pick_where": "primary"} if rng.random() < 0.5 else {})})
            profile["email"] = profile.get("email", []) + ["extra.email"]
        if profile:
            doc["profile"] = shuffled(rng, profile)

    if protocol == "oidc" and rng.random() < 0.3:
        logout = {}
        for channel in ("backchannel", "frontchannel"):
            if channel == "backchannel" and not has_keys:
                continue
            if rng.random() < 0.5:
                logout[f"{channel}_logout_supported"] = True
                if rng.random() < 0.5:
                    logout[f"{channel}_logout_session_supported"] = rng.random() < 0.7
            elif rng.random() < 0.3:
                logout[f"{channel}_logout_supported"] = False
        if rng.random() < 0.3:
            logout["logout_token_max_age"] = rng.randint(10, 3600)
        if rng.random() < 0.3:
            logout["condition"] = prose(rng)
        if logout:
            doc["logout"] = shuffled(rng, logout)

    declared = doc.get("grant_types", [])
    if "urn:ietf:params:oauth:grant-type:device_code" in declared and rng.random() < 0.5:
        device = {"interval": rng.randint(1, 60)}
        if rng.random() < 0.5:
            device["extra_params"] = {"response_type": "device_code"} if rng.random() < 0.5 else {f"x_{fresh()}": "1"}
        if rng.random() < 0.3:
            device["verification_uri_aliases"] = ["verification_url"]
        doc["device"] = shuffled(rng, device)

    if "client_credentials" in declared and "client_auth" in doc and "methods" in doc["client_auth"] and rng.random() < 0.4:
        doc["service_tokens"] = {"target": rng.choice(["resource", "audience"])}

    if "revocation" in endpoints and rng.random() < 0.3:
        doc["revocation"] = shuffled(rng, {"type_hint": rng.random() < 0.5,
                                           "tokens": rng.sample(["refresh_token", "access_token"], rng.randint(1, 2))})

    formats = (["jwt"] if has_keys else []) + (["opaque"] if has_introspection else []) + (["both"] if has_keys and has_introspection else [])
    if issuer and formats and rng.random() < 0.2:
        access_tokens = {"format": rng.choice(formats)}
        if access_tokens["format"] != "opaque":
            access_tokens["signing_algs"] = rng.sample(ALGS, rng.randint(1, 4))
            access_tokens["profile"] = rng.choice(["rfc9068", "plain"])
        access_tokens["leeway"] = rng.randint(0, 300)
        doc["access_tokens"] = shuffled(rng, access_tokens)

    if invalid_kind is not None:
        spoil(rng, doc, invalid_kind, base)

    head = ["schema_version", "id"] if rng.random() < 0.6 else []
    return shuffled(rng, doc, keep_first=head)


INVALID_KINDS = ["unknown_key", "wrong_type", "undeclared_variable", "http_endpoint", "reserved_parameter",
                 "literal_secret", "broken_pattern", "malformed_url"]


def spoil(rng, doc, kind, base):
    """One error of the given kind."""
    if kind == "unknown_key":
        doc["securty"] = {"pkce": "required"}
    elif kind == "wrong_type":
        doc["scopes"] = {"default": "openid profile"}
    elif kind == "undeclared_variable":
        doc["endpoints"]["token"] = base + "/{undeclared_region}/token"
    elif kind == "http_endpoint":
        doc["endpoints"]["token"] = "http://" + base[len("https://"):] + "/token"
    elif kind == "reserved_parameter":
        doc["authorization"] = {"extra_params": {"redirect_uri": "https://evil.example/cb"}}
    elif kind == "literal_secret":
        doc["token_request"] = {"extra_params": {"client_secret": "s3cr3t-value-0123456789"}}
    elif kind == "broken_pattern":
        doc["variables"] = doc.get("variables") or {}
        doc["variables"]["broken"] = {"description": "x", "pattern": "^(a|b$", "default": "a"}
        doc["endpoints"]["token"] = base + "/{broken}/token"
    elif kind == "malformed_url":
        doc["docs_url"] = "https://exa mple.com/docs"


# Each warning kind with its weight: how often a stranger's descriptors draw it, roughly.
WARNING_KINDS = [("offline_access", 30), ("unused_variable", 18), ("localhost", 14), ("repeated_scope", 12),
                 ("device_endpoint", 6), ("logout", 7), ("dpop_off", 5), ("unread_extra_call", 4), ("details_unpushed", 4)]


def add_warnings(rng, doc, context, rate):
    """Adds about `rate` warnings (0 to 3) to doc, each of a different kind, each drawing one warning."""
    count = sum(rng.random() < rate / 3 for _ in range(3))
    kinds = [kind for kind, _ in WARNING_KINDS]
    weights = [weight for _, weight in WARNING_KINDS]
    added = []
    while len(added) < count and kinds:
        kind = rng.choices(kinds, weights)[0]
        position = kinds.index(kind)
        del kinds[position], weights[position]
        if warn(rng, doc, kind, context):
            added.append(kind)
    return added


def warn(rng, doc, kind, context):
    """Changes doc so that lint draws one warning of `kind`; False when the descriptor cannot take it."""
    scopes = doc.get("scopes")
    if kind == "offline_access":
        offline = scopes.get("offline") if scopes else None
        if offline and "offline_access" in offline.get("scopes", []):
            # The offline scope asked for without `prompt=consent` and without saying the provider needs none.
            offline.pop("without_consent_prompt", None)
            params = offline.get("params")
            if params and "prompt" in params:
                del params["prompt"]
                if not params:
                    del offline["params"]
            return True
        if "prompt" in doc.get("authorization", {}).get("extra_params", {}) or (offline and offline.get("without_consent_prompt")):
            return False
        doc.setdefault("scopes", {}).setdefault("default", []).append("offline_access")
        return True
    if kind == "unused_variable":
        name = next(f"{word}_{number}" for number in range(100) for word in [rng.choice(WORDS)]
                    if f"{word}_{number}" not in context["words_used"] and f"{word}_{number}" not in doc.get("variables", {}))
        definition = {"description": prose(rng), "example": rng.choice(["demo", "acme", "eu"])}
        doc.setdefault("variables", {})[name] = shuffled(rng, definition)
        return True
    if kind == "localhost":
        loopback = doc.setdefault("redirect", {}).setdefault("loopback", {})
        loopback["host"] = "localhost"
        return True
    if kind == "repeated_scope":
        listed = (scopes or {}).get("default")
        if not listed:
            return False
        listed.insert(rng.randint(len(listed) // 2, len(listed)), rng.choice(listed))
        return True
    if kind == "device_endpoint":
        device = "urn:ietf:params:oauth:grant-type:device_code"
        if "device_authorization" in doc["endpoints"] or device in doc.get("grant_types", []) or "device" in doc:
            return False
        doc["endpoints"]["device_authorization"] = context["base"] + "/device/code"
        if "grant_types" not in doc and "discovery" in doc and doc["discovery"].get("mode") != "none":
            # Without `grant_types` a discovering descriptor would not be refused the grant it does not declare either way.
            doc["grant_types"] = ["authorization_code", "refresh_token"]
        return True
    if kind == "logout":
        logout = doc.get("logout", {})
        if "style" in logout or "returns_state" in logout or "redirect_parameter" in logout:
            return False
        if "end_session" in doc["endpoints"] or doc.get("discovery", {}).get("mode", "none") != "none":
            logout["returns_state"] = False  # the check that a return is this sign-out's turned off
        else:
            logout["redirect_parameter"] = "post_logout_redirect_uri"  # nowhere to send it
        doc["logout"] = logout
        return True
    if kind == "dpop_off":
        security = doc.setdefault("security", {})
        if security.get("dpop", "never") != "never":
            return False
        security["dpop_bearer_answer"] = rng.choice(["accept", "refuse"])
        return True
    if kind == "unread_extra_call":
        if "profile" in doc:
            return False
        doc["profile"] = {"extra_call": {"url": f"https://api.{rng.choice(WORDS)}.example/user/emails"}}
        return True
    if kind == "details_unpushed":
        authorization = doc.setdefault("authorization", {})
        authorization["pushed"] = "never"
        authorization["details_types"] = rng.sample(["payment_initiation", "account_information", "openid_credential"], rng.randint(1, 2))
        return True
    raise ValueError(kind)


def render(rng, doc):
    indent = rng.choice([2, 2, 2, 3, 4])
    writer = Writer(rng, indent)
    head = []
    if rng.random() < 0.5:
        head.append("# yaml-language-server: $schema=schema.json")
    if rng.random() < 0.3:
        head += ["#", "# " + rng.choice(TEXTS)] + ["# " + line for line in wrap(LONG * rng.randint(1, 2), 78)] + ["#"]
    if rng.random() < 0.2:
        head.append("---")
    writer.lines = head
    writer.mapping(doc, 0)
    if rng.random() < 0.1:
        writer.lines.append("...")
    newline = "\r\n" if rng.random() < 0.1 else "\n"
    text = newline.join(writer.lines) + newline
    if rng.random() < 0.05:
        text = "\ufeff" + text
    return text


def main():
    args = sys.argv[1:]
    seed, invalid, warnings = 47, 0, 0.0
    if "--seed" in args:
        position = args.index("--seed")
        seed = int(args[position + 1])
        del args[position:position + 2]
    if "--invalid" in args:
        position = args.index("--invalid")
        invalid = int(args[position + 1])
        del args[position:position + 2]
    if "--warnings" in args:
        position = args.index("--warnings")
        warnings = float(args[position + 1])
        del args[position:position + 2]
        if not 0 <= warnings <= 3:
            sys.exit("--warnings takes a mean number of warnings a file, from 0 to 3")
    if not args:
        sys.exit(__doc__)
    out = Path(args[0])
    count = int(args[1]) if len(args) > 1 else 1000
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    spoiled = {round(i * count / invalid) for i in range(invalid)} if invalid else set()
    kinds = iter(INVALID_KINDS * (invalid // len(INVALID_KINDS) + 1))
    # The warnings' own stream: the descriptors and their layout draw from `rng` as in the clean corpus.
    warning_rng = random.Random(f"warnings-{seed}")
    total, drawn = 0, {}
    for index in range(count):
        kind = next(kinds) if index in spoiled else None
        context = {}
        doc = descriptor(rng, index, kind, context)
        state = rng.getstate()
        text = render(rng, doc)
        if warnings:
            added = add_warnings(warning_rng, doc, context, warnings)
            if added:
                for name in added:
                    drawn[name] = drawn.get(name, 0) + 1
                # Laid out from the state the clean file was, so the rest of the corpus stays the clean one's.
                layout = random.Random()
                layout.setstate(state)
                text = render(layout, doc)
        (out / f"{doc['id']}.yaml").write_bytes(text.encode("utf-8"))
        total += len(text.encode("utf-8"))
    print(f"{count} descriptors, {total / 1024:.0f} KiB, in {out}", file=sys.stderr)
    if warnings:
        print(f"warnings added: {sum(drawn.values())} ({', '.join(f'{name} {n}' for name, n in sorted(drawn.items()))})", file=sys.stderr)


if __name__ == "__main__":
    main()
