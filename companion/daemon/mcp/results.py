"""What the tools answer, as models: each tool's output schema is one of these, so an
agent reads files, credits and balance as fields, not from prose."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.daemon.schema.character import CharacterOut, CharacterQuoteOut
from companion.daemon.schema.quote import QuoteOut
from companion.daemon.schema.requests import JobOut, Reply

Verdict = Literal["free", "within", "ask", "refused"]
HOW_TO_APPROVE = (
    "a person makes it from the editor (the Godot dock, the Unity window) or with "
    "`companion animate`; a job the daemon's budget holds waits for `companion jobs "
    "approve JOB` or the dock's Approve; or raise the agent limits (agents: in config.yaml)"
)


class AgentsOut(BaseModel):
    """The limits on what an agent spends unasked, and what agents spent against them."""

    per_call: int | None = Field(description="credits one call may spend unasked (null: none)")
    per_session: int | None = Field(description="credits this session may spend unasked")
    per_day: int | None = Field(description="credits agents may spend unasked a day")
    no_spend: bool = Field(description="every paid call from an agent is refused")
    session_spent: int
    day_spent: int
    verdict: Verdict = Field(
        description="what the paying tool does with this: free (spends nothing), within "
        "(spends, within the limits), ask (asks the user first), refused (no spending)"
    )
    why: str


class AgentQuoteOut(QuoteOut):
    agents: AgentsOut


class AgentCharacterQuoteOut(CharacterQuoteOut):
    agents: AgentsOut


class Made(BaseModel):
    """A paying tool's answer: what it made (or why nothing was), what it spent."""

    made: bool = Field(description="a job was made or joined; false: nothing was spent")
    spent: int = Field(description="credits this call spent (0: made already, a free re-cut)")
    balance: int | None = Field(description="credits available after it (null: not known)")
    asked: bool = Field(description="the user was asked and agreed")
    files: list[str] = Field(
        default_factory=list,
        description="the files installed, as the engine names them (res://... for Godot, "
        "Assets/... for Unity), once the job is done",
    )
    note: str = ""


class AnimateDone(Made):
    job: JobOut | None = None


class CharacterDone(Made):
    character: CharacterOut | None = None


class JobsOut(BaseModel):
    data: list[JobOut]


class Listing(BaseModel):
    """A listing of the daemon passed on as it is (projects, generations, models): its
    items in data, beside what else it says (the next page's cursor)."""

    model_config = ConfigDict(extra="allow")

    data: Any

    @classmethod
    def of(cls, answer: Any) -> Listing:
        if isinstance(answer, dict) and "data" in answer:
            return cls.model_validate(answer)
        return cls(data=answer)


class CreditsOut(Reply):
    balance: int | None = None
    mode: str
    service: str
    agents: AgentsOut
