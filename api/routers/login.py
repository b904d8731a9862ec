"""`POST /v1/login`: a one-time login token (printed by `lexlogic serve` in local mode) → the API key."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from lexlogic.api.problems import ProblemError, problem_responses

router = APIRouter(prefix="/v1", tags=["service"])


class LoginToken(BaseModel):
    token: str = Field(min_length=16, max_length=200, description="the `login` parameter of the one-click URL")


class LoginKey(BaseModel):
    key: str = Field(description="the API key for the page (send it as X-API-Key)")


@router.post(
    "/login",
    response_model=LoginKey,
    summary="Exchange a one-time login token for the API key (local mode; no key needed)",
    responses=problem_responses(401, 422),
)
def login(body: LoginToken, request: Request) -> LoginKey:
    tokens = getattr(request.app.state, "login_tokens", None)
    key = tokens.redeem(body.token) if tokens is not None else None
    if key is None:
        raise ProblemError(
            401, "this login link is unknown, already used or expired: restart `lexlogic serve`", slug="login"
        )
    return LoginKey(key=key)
