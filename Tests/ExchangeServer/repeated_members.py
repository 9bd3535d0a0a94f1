"""JWTs whose header or payload repeat a member name, refused (RFC 7515 section 5.2, RFC 7519
section 7.2 let a parser reject them or keep the lexically last member; OAuthFlow rejects them, and
so do its test servers). Authlib, joserfc, idpyoidc and cryptojwt parse JSON with json.loads, which
keeps the last of repeated members without a word, so each test server asks this module about every
JWT it reads from a request before its library verifies it:

    from repeated_members import first_repeated, repeated_member

    why = repeated_member(token, "client assertion")
    # None, or "the client assertion's payload repeats the member 'aud' (RFC 7515 section 5.2, ...)"

Shared by the service, exchange, PAR and logout servers, with the standard library only. It lives
beside the exchange server, whose pinned requirements the other idpyoidc servers import as well.
"""

import base64
import json

REFERENCE = "(RFC 7515 section 5.2, RFC 7519 section 7.2)"
LONGEST_NAME = 64


class RepeatedMember(ValueError):
    """A JSON object holds the member `name` more than once."""

    def __init__(self, name):
        ValueError.__init__(self, f"the member {shown(name)} is repeated")
        self.name = name


def unique_members(pairs):
    """json.loads's object_pairs_hook: the object as a dict, or RepeatedMember."""
    names = set()
    for name, _ in pairs:
        if name in names:
            raise RepeatedMember(name)
        names.add(name)
    return dict(pairs)


def loads(text):
    """json.loads, but RepeatedMember when an object, at any depth, repeats a member name. Names
    compare as JSON decodes them: "aud" and "a\\u0075d" are the same name."""
    return json.loads(text, object_pairs_hook=unique_members)


def shown(name):
    """A member name for an error description, quoted: ASCII, without control characters or double
    quotes (descriptions also go into WWW-Authenticate quoted-strings), at most LONGEST_NAME long."""
    text = json.dumps(name)[1:-1].replace('\\"', "\\u0022")
    if len(text) > LONGEST_NAME:
        text = text[:LONGEST_NAME] + "..."
    return f"'{text}'"


def repeated_member(token, what="JWT"):
    """Why `token` is refused for a repeated member name, or None. `token` is a JWT in compact form
    (RFC 7519 section 1): its JOSE header is read, and for a JWS (three parts) its payload too (a
    JWE's other parts are encrypted). Whatever is not base64url-encoded JSON is left to the library
    that verifies the token, which refuses it anyway. `what` names the token in the answer."""
    if not isinstance(token, str):
        return None
    parts = token.split(".")
    if len(parts) == 3:
        readable = (("header", parts[0]), ("payload", parts[1]))
    elif len(parts) == 5:
        readable = (("header", parts[0]),)
    else:
        return None
    for part, segment in readable:
        try:
            loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)).decode("utf-8"))
        except RepeatedMember as err:
            return f"the {what}'s {part} repeats the member {shown(err.name)} {REFERENCE}"
        except (ValueError, RecursionError):
            continue
    return None


def first_repeated(params, names):
    """repeated_member for the parameters `names` of `params`, a dict of strings or of lists of
    strings (as parse_qs makes them): (name, why) for the first one refused, else None."""
    for name in names:
        values = params.get(name)
        for value in values if isinstance(values, list) else [values]:
            why = repeated_member(value, name)
            if why:
                return name, why
    return None
