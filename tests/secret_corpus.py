"""Fake credentials of each kind, built from parts at run time, and look-alikes that are none.

No key below is real or written whole in this file: each is assembled from a prefix split in two
and seeded random characters, so the repository holds no pushable secret for a scanner to flag.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


@dataclass(frozen=True)
class Planted:
    """A fake secret and the kind the scanner should name."""

    kind: str
    value: str


def fake_secrets(seed: int = 7) -> list[Planted]:
    """One fake secret of each kind the scanner knows (a different set for each ``seed``)."""
    r = random.Random(seed)
    c = lambda alphabet, n: _chars(r, alphabet, n)  # noqa: E731
    b64 = _ALNUM + "+/"
    url_safe = _ALNUM + "-_"
    key_lines = "\n".join(c(b64, 64) for _ in range(6))
    header = "-----" + "BEGIN " + "RSA PRIVATE" + " KEY-----"
    footer = "-----" + "END " + "RSA PRIVATE" + " KEY-----"
    # A well-formed token: its header and claims are JSON, its signature random.
    jwt_head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}))
    jwt_body = _b64url(
        json.dumps({"sub": c(string.digits, 10), "name": "Test", "iat": 1760000000 + r.randrange(10**6)})
    )
    return [
        Planted("OPENAI_API_KEY", "s" + "k-" + "proj-" + c(url_safe, 60)),
        Planted("OPENAI_API_KEY", "s" + "k-" + c(_ALNUM, 48)),
        Planted("ANTHROPIC_API_KEY", "s" + "k-ant-" + "api03-" + c(url_safe, 93)),
        Planted("AWS_ACCESS_KEY_ID", "AK" + "IA" + c(_UPPER, 16)),
        Planted("GITHUB_TOKEN", "gh" + "p_" + c(_ALNUM, 36)),
        Planted("GITHUB_TOKEN", "github" + "_pat_" + c(_ALNUM + "_", 82)),
        Planted("GITLAB_TOKEN", "gl" + "pat-" + c(url_safe, 20)),
        Planted(
            "SLACK_TOKEN",
            "xo" + "xb-" + c(string.digits, 12) + "-" + c(string.digits, 13) + "-" + c(_ALNUM, 24),
        ),
        Planted(
            "SLACK_WEBHOOK",
            "https://hooks."
            + "slack.com/services/T"
            + c(_UPPER, 8)
            + "/B"
            + c(_UPPER, 8)
            + "/"
            + c(_ALNUM, 24),
        ),
        Planted("STRIPE_KEY", "s" + "k_" + "live_" + c(_ALNUM, 24)),
        Planted("GOOGLE_API_KEY", "AI" + "za" + c(url_safe, 35)),
        Planted("SENDGRID_API_KEY", "S" + "G." + c(url_safe, 22) + "." + c(url_safe, 43)),
        Planted("NPM_TOKEN", "np" + "m_" + c(_ALNUM, 36)),
        Planted("HUGGINGFACE_TOKEN", "h" + "f_" + c(string.ascii_letters, 34)),
        Planted("JWT", jwt_head + "." + jwt_body + "." + c(url_safe, 43)),
        Planted("PRIVATE_KEY", header + "\n" + key_lines + "\n" + footer),
        Planted("PASSWORD", "Pw" + c(_ALNUM, 10) + "9!"),
        Planted("CONNECTION_STRING", c(string.ascii_letters, 6) + c(string.digits, 3) + c(_ALNUM, 5)),
        Planted("SECRET", c(_ALNUM, 32)),
    ]


def settings(p: Planted) -> str:
    """How a file writes ``p``: the line or lines that hold it."""
    if p.kind == "PASSWORD":
        return f"DB_PASSWORD={p.value}"
    if p.kind == "CONNECTION_STRING":
        return f"DATABASE_URL=postgres://app:{p.value}@db.internal:5432/app"
    if p.kind == "SECRET":
        return f'client_secret: "{p.value}"'
    if p.kind == "PRIVATE_KEY":
        return p.value
    return f"export {p.kind}={p.value}"


def placements(p: Planted) -> dict[str, str]:
    """A knowledge file for each place a secret is pasted: a bare header, front matter, the
    body's prose and a code fence."""
    line = settings(p)
    head = "CONCEPT: deploy\nTLDR: How the service is deployed.\nANSWERS_WHEN: deploy, release\nVALIDATED: 2026-10\n"
    out = {
        "body": f"{head}\n# Deploy\n\nSet the key before a release: {line}\n",
        "fence": f"{head}\n# Deploy\n\n```sh\n{line}\n```\n",
    }
    if "\n" not in line:
        out["bare_header"] = head.replace("TLDR: How the service is deployed.", f"TLDR: Deploy with {line}")
        out["front_matter"] = (
            "---\nCONCEPT: deploy\nTLDR: How the service is deployed.\nANSWERS_WHEN: [deploy, release]\n"
            f"notes: '{line}'\nVALIDATED: 2026-10\n---\n\n# Deploy\n"
        )
    return out


def look_alikes(seed: int = 7) -> list[str]:
    """Lines that look like secrets to a careless scanner and are none."""
    r = random.Random(seed)
    hexd = "0123456789abcdef"
    uuid = "-".join(_chars(r, hexd, n) for n in (8, 4, 4, 4, 12))
    sha = _chars(r, hexd, 40)
    return [
        f"The request id is {uuid}, logged with every call.",
        f"token: {uuid}",
        f"Fixed in commit {sha} (see the changelog).",
        f"commit: {sha}",
        f"Docker image digest sha256:{_chars(r, hexd, 64)} is pinned.",
        "OPENAI_API_KEY=sk-...",
        "export OPENAI_API_KEY=sk-your-key-here",
        "api_key: YOUR_API_KEY",
        "password: <your password>",
        "DB_PASSWORD=${DB_PASSWORD}",
        'client_secret: "{{ secrets.CLIENT_SECRET }}"',
        "token = os.environ['GITHUB_TOKEN']",
        "password = config.db.password",
        "secret: changeme",
        "The AWS docs use AK" + "IAIOSFODNN7EXAMPLE as their example key.",
        "gh" + "p_" + "x" * 36,
        "Connect with postgres://user:password@localhost:5432/app in development.",
        "Use https://example.com/docs/tokens/refresh-token-rotation for details.",
        "tokenizer: sentencepiece_v2_model",
        "max_tokens: 4096",
        "The password policy requires 12 characters.",
        "Keywords: jwt, access token, refresh token, token rotation",
        "ANSWERS_WHEN: api key, secret rotation, credentials, password reset",
        "See src/components/authentication/TokenRefreshProvider.tsx for the hook.",
        "Passwords are hashed with bcrypt (cost 12) before they are stored.",
        "password_hash: bcrypt",
        "The key: value pairs of the config are read at start.",
        'NEXTAUTH_SECRET="generate-a-secure-secret-key"',
        '"NEXTAUTH_SECRET": "@nextauth_secret"',
        "BEARER_TOKEN = 'bearer_token',",
        "SERVICE_ACCOUNT_TOKEN = 'service_account_token', // a name, not a token",
        "Run `ckp check --changed origin/main` in CI.",
    ]
