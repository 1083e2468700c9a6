"""The tools: each takes a daemon request body as its arguments (checked by the daemon's
own model, so the error names the field) and calls the daemon, so its checks, budgets
and pay-once rules are the ones every other way in meets. Read-only tools are marked so;
paying tools are idempotent: the same arguments are the same job, and a repeat answers
the job made or under way, spending nothing."""

# No `from __future__ import annotations`: the SDK reads the tools' and resolvers'
# annotations at registration, and those of closures must be objects, not names.
import asyncio
import re
import urllib.parse
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from companion import __version__
from companion.api.schema.base import first_error
from companion.daemon.errors import CallRefused
from companion.daemon.mcp.link import DaemonLink
from companion.daemon.mcp.results import (
    HOW_TO_APPROVE,
    AgentCharacterQuoteOut,
    AgentQuoteOut,
    AgentsOut,
    AnimateDone,
    CharacterDone,
    CreditsOut,
    JobsOut,
    Listing,
)
from companion.daemon.mcp.spending import Decision, Limits, Spent, decide
from companion.daemon.schema.character import CharacterIn, CharacterOut
from companion.daemon.schema.requests import AnimateIn, JobOut, RecutIn, Request
from companion.media.engine_text import godot_res_path
from companion.settings.config import Settings, load_settings

Model = TypeVar("Model", bound=BaseModel)
FINAL = {"done", "failed", "cancelled", "awaiting_approval"}
FOLLOW_SECONDS = 0.5  # between looks at a job the client waits for
READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True)
PAYS = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=True
)
FREE_WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True)
JOB_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
INSTRUCTIONS = (
    "Animate still images into a registered Godot or Unity project. Call quote first (it "
    "is free), then animate with the same arguments: the same arguments never pay twice. "
    "Paths are relative to the project; a project is named by its folder (project_root)."
)


class JobRef(Request):
    id: str = Field(min_length=1, max_length=64, description="the job's id")


class RecutArgs(RecutIn):
    id: str = Field(
        min_length=1, max_length=64, description="the paid generation (its job) to re-cut"
    )


class GenerationsArgs(Request):
    project: str | None = Field(default=None, max_length=4096, description="a project folder")
    limit: int = Field(default=50, ge=1, le=200)
    before: str | None = Field(default=None, max_length=128)


class Nothing(Request):
    pass


class Approval(BaseModel):
    """The user's answer when an agent's paid call is over its limits."""

    approve: bool = Field(description="spend the credits named above")


class Priced(BaseModel):
    """The quote a paying call was priced at, and what the limits say of it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    quote: dict[str, Any]
    decision: Decision
    body: dict[str, Any]
    unasked: bool = False  # over the limits, and the client cannot ask the user


class _Raw(ArgModelBase):
    """The arguments as sent, whole: the daemon's model checks them (one shape)."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"body": dict(self.model_extra or {})}


def parsed(model: type[Model], body: dict[str, Any]) -> Model:
    """body as model, or one ToolError naming the field (the daemon's own words)."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        param, message = first_error(exc)
        raise ToolError(f"{param}: {message}" if param else message) from None


def refused(exc: CallRefused) -> ToolError:
    return ToolError(f"{exc.message} ({exc.code}; nothing was spent)")


def engine_names(root: str, job: JobOut) -> list[str]:
    """The installed files as the engine names them: res://... in Godot, Assets/... in
    Unity (paths under the project root), otherwise as they are."""
    base = Path(root).resolve()
    names = []
    for output in job.outputs:
        if not output.installed_path:
            continue
        path = Path(output.installed_path)
        try:
            inside = path.resolve().relative_to(base).as_posix()
        except ValueError:
            names.append(str(path))
            continue
        godot = (base / "project.godot").is_file()
        names.append(godot_res_path(inside) if godot else inside)
    return names


class Agents:
    """The tools of one server, around one link to the daemon."""

    def __init__(
        self, link: DaemonLink, home: Path, settings: Callable[[], Settings] | None = None
    ) -> None:
        self.link = link
        self.spent = Spent(home)
        self._settings = settings or load_settings

    # -- money -----------------------------------------------------------------------

    def limits(self) -> Limits:
        return Limits.of(self._settings())

    def session_of(self, ctx: Context) -> str:
        try:
            headers = ctx.headers
        except ValueError:  # outside a request
            headers = None
        return str((headers or {}).get("mcp-session-id") or "process")

    def judge(self, spends: int, ctx: Context) -> Decision:
        session = self.session_of(ctx)
        return decide(self.limits(), spends, self.spent.session(session), self.spent.today())

    def agents_out(self, decision: Decision) -> AgentsOut:
        limits = self.limits()
        return AgentsOut(
            per_call=limits.per_call,
            per_session=limits.per_session,
            per_day=limits.per_day,
            no_spend=limits.no_spend,
            session_spent=decision.session_spent,
            day_spent=decision.day_spent,
            verdict=decision.verdict,
            why=decision.why,
        )

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        try:
            return await self.link.call(method, path, body)
        except CallRefused as exc:
            raise refused(exc) from None

    async def balance(self) -> int | None:
        try:
            status = await self.link.call("GET", "/api/v1/status")
        except CallRefused:
            return None
        value = status.get("balance") if isinstance(status, dict) else None
        return value if isinstance(value, int) else None

    def question(self, what: str, priced: Priced, ctx: Context) -> Elicit[Approval] | Priced:
        """The question put to the user when a call is over the agent limits (its
        words hold the quote id, so another request is another question); a client
        that cannot ask is answered that nothing was spent."""
        decision, quote = priced.decision, priced.quote
        if decision.verdict == "refused":
            raise ToolError(decision.why)
        if decision.verdict != "ask":
            return priced
        if not _can_ask(ctx):
            return priced.model_copy(update={"unasked": True})
        budget = quote.get("budget") or {}
        limits = ", ".join(
            f"{k.replace('_', ' ')} {budget.get(k)}"
            for k in ("per_job", "per_day", "per_month")
            if budget.get(k) is not None
        )
        message = (
            f"An agent asks to spend {decision.spends} credits on {what} (quote "
            f"{quote.get('quote_id')}); {decision.why}. Balance: {quote.get('balance')} "
            f"credits. The daemon's budget: {limits or 'none set'}, "
            f"{budget.get('spent_today', 0)} spent today. Spend {decision.spends} credits?"
        )
        return Elicit(message, Approval)

    def go(self, priced: Priced, answer: ElicitationResult[Any], ctx: Context) -> bool:
        """Whether to spend: within the limits, or the user said yes."""
        if priced.decision.verdict in ("free", "within"):
            return True
        if priced.unasked or not isinstance(answer, AcceptedElicitation):
            return False
        data = answer.data
        return isinstance(data, Approval) and data.approve

    async def follow(self, job: JobOut, ctx: Context) -> JobOut:
        """The job to its end while the client waits with a progress token; at once
        (as it stands) otherwise."""
        try:
            meta: Any = ctx.request_context.meta or {}
        except ValueError:
            meta = {}
        if meta.get("progress_token", meta.get("progressToken")) is None:
            return job
        while job.state not in FINAL:
            await ctx.report_progress(job.progress * 100, 100, f"{job.name}: {job.state}")
            await asyncio.sleep(FOLLOW_SECONDS)
            job = JobOut.model_validate(await self.call("GET", f"/api/v1/jobs/{job.id}"))
        await ctx.report_progress(100, 100, f"{job.name}: {job.state}")
        return job

    # -- the resolvers: priced, then asked, before the body runs ----------------------

    async def price_animate(self, body: dict[str, Any], ctx: Context) -> Priced:
        checked = parsed(AnimateIn, body)
        quote = await self.call("POST", "/api/v1/quote", body)
        priced = Priced(quote=quote, decision=self.judge(int(quote["spends"]), ctx), body=body)
        return (
            priced.model_copy(update={"body": {**body, "quote_id": quote["quote_id"]}})
            if (checked.quote_id is None)
            else priced
        )

    async def price_character(self, body: dict[str, Any], ctx: Context) -> Priced:
        checked = parsed(CharacterIn, body)
        quote = await self.call("POST", "/api/v1/character/quote", body)
        decision = self.judge(int(quote["spends"]), ctx)
        fixed = body if checked.quote_id is not None else {**body, "quote_id": quote["quote_id"]}
        return Priced(quote=quote, decision=decision, body=fixed)

    # -- the tools ---------------------------------------------------------------------

    async def quote(self, body: dict[str, Any], ctx: Context) -> AgentQuoteOut:
        """Free: the price of animating with these arguments, what it spends now (0 when
        a job made already or a kept clip answers it), the balance, the daemon's budgets
        and the agent limits, and whether animate would spend, ask, or refuse."""
        parsed(AnimateIn, body)
        quote = await self.call("POST", "/api/v1/quote", body)
        decision = self.judge(int(quote["spends"]), ctx)
        return AgentQuoteOut.model_validate({**quote, "agents": self.agents_out(decision)})

    async def animate(
        self,
        body: dict[str, Any],
        ctx: Context,
        priced: Priced,
        answer: ElicitationResult[Approval],
    ) -> AnimateDone:
        """Animate a picture into a registered project (the arguments of quote). Spends
        what quote says, within the agent limits or once the user agrees; the same
        arguments again answer the job made or under way and spend nothing. Returns the
        job at once, or follows it to its end while the client waits with progress."""
        priced = _as_asked(priced, answer)
        if not self.go(priced, answer, ctx):
            return AnimateDone(
                made=False, spent=0, balance=priced.quote.get("balance"),
                asked=not priced.unasked, note=_not_spent(priced),
            )  # fmt: skip
        job = JobOut.model_validate(await self.call("POST", "/api/v1/animate", priced.body))
        spends = priced.decision.spends if priced.quote.get("earlier") is None else 0
        self.spent.add(self.session_of(ctx), job.id, spends)
        job = await self.follow(job, ctx)
        return AnimateDone(
            made=True,
            spent=spends,
            balance=await self.balance(),
            asked=priced.decision.verdict == "ask",
            files=engine_names(str(priced.body["project_root"]), job),
            job=job,
            note=_job_note(job),
        )

    async def character_quote(self, body: dict[str, Any], ctx: Context) -> AgentCharacterQuoteOut:
        """Free: the price of a character's set (the arguments of character), what it
        spends now, and whether character would spend, ask, or refuse."""
        parsed(CharacterIn, body)
        quote = await self.call("POST", "/api/v1/character/quote", body)
        decision = self.judge(int(quote["spends"]), ctx)
        return AgentCharacterQuoteOut.model_validate({**quote, "agents": self.agents_out(decision)})

    async def character(
        self,
        body: dict[str, Any],
        ctx: Context,
        priced: Priced,
        answer: ElicitationResult[Approval],
    ) -> CharacterDone:
        """A character's moves from one picture (the daemon's character body): priced as
        one set, spent within the agent limits or once the user agrees."""
        priced = _as_asked(priced, answer)
        if not self.go(priced, answer, ctx):
            return CharacterDone(
                made=False, spent=0, balance=priced.quote.get("balance"),
                asked=not priced.unasked, note=_not_spent(priced),
            )  # fmt: skip
        made = CharacterOut.model_validate(
            await self.call("POST", "/api/v1/character", priced.body)
        )
        for move in made.moves:
            self.spent.add(self.session_of(ctx), move.job.id, move.spends)
        return CharacterDone(
            made=True,
            spent=made.spends,
            balance=await self.balance(),
            asked=priced.decision.verdict == "ask",
            character=made,
            note="each move is a job: follow them with job or jobs",
        )

    async def recut(self, body: dict[str, Any], ctx: Context) -> AnimateDone:
        """Free: the kept clip of a paid generation cut again (other frames, size,
        formats, name or folder); the daemon's re-cut body, with the generation's id."""
        args = parsed(RecutArgs, body)
        job_id = _job_id(args.id)
        sent = {k: v for k, v in body.items() if k != "id"}
        job = JobOut.model_validate(
            await self.call("POST", f"/api/v1/generations/{job_id}/recut", sent)
        )
        job = await self.follow(job, ctx)
        root = await self._root_of(job)
        return AnimateDone(
            made=True, spent=0, balance=await self.balance(), asked=False,
            files=engine_names(root, job) if root else [], job=job, note=_job_note(job),
        )  # fmt: skip

    async def job(self, body: dict[str, Any]) -> JobOut:
        """One job as it stands: state, progress, its files once installed."""
        ref = parsed(JobRef, body)
        return JobOut.model_validate(await self.call("GET", f"/api/v1/jobs/{_job_id(ref.id)}"))

    async def jobs(self, body: dict[str, Any]) -> JobsOut:
        """Every job, newest first: to find one under way instead of asking again."""
        parsed(Nothing, body)
        return JobsOut.model_validate(await self.call("GET", "/api/v1/jobs"))

    async def cancel(self, body: dict[str, Any]) -> JobOut:
        """Cancel a job not finished (what the service holds for it is given back)."""
        ref = parsed(JobRef, body)
        return JobOut.model_validate(
            await self.call("POST", f"/api/v1/jobs/{_job_id(ref.id)}/cancel")
        )

    async def generations(self, body: dict[str, Any]) -> Listing:
        """The paid generations, newest first (optionally one project's): what a free
        re-cut can start from."""
        args = parsed(GenerationsArgs, body)
        query = {"limit": str(args.limit)}
        if args.project:
            query["project"] = args.project
        if args.before:
            query["before"] = args.before
        path = "/api/v1/generations?" + urllib.parse.urlencode(query)
        return Listing.of(await self.call("GET", path))

    async def credits(self, body: dict[str, Any], ctx: Context) -> CreditsOut:
        """The balance, the local books, and the agent limits with what agents spent."""
        parsed(Nothing, body)
        status = await self.call("GET", "/api/v1/status")
        agents = self.agents_out(self.judge(0, ctx))
        return CreditsOut.model_validate({**status, "agents": agents})

    async def models(self, body: dict[str, Any]) -> Listing:
        """The service's models and what each can do (lengths, resolutions, features)."""
        parsed(Nothing, body)
        return Listing.of(await self.call("GET", "/api/v1/models"))

    async def projects(self, body: dict[str, Any]) -> Listing:
        """The registered projects: the only folders the tools read from and write into."""
        parsed(Nothing, body)
        return Listing.of(await self.call("GET", "/api/v1/projects"))

    async def _root_of(self, job: JobOut) -> str | None:
        listed = await self.call("GET", "/api/v1/projects")
        target = Path(job.target_dir or "")
        for project in listed.get("data", []) if isinstance(listed, dict) else []:
            root = Path(str(project.get("root", "")))
            if target == root or root in target.parents:
                return str(root)
        return None


def _as_asked(priced: Priced, answer: ElicitationResult[Any]) -> Priced:
    """The priced call as the asking resolver left it (it marks one it could not ask)."""
    if isinstance(answer, AcceptedElicitation) and isinstance(answer.data, Priced):
        return answer.data
    return priced


def _can_ask(ctx: Context) -> bool:
    """Whether the client declared form elicitation (a bare elicitation: {} counts)."""
    try:
        capabilities = ctx.client_capabilities
    except ValueError:
        return False
    asks = capabilities.elicitation if capabilities is not None else None
    return asks is not None and (asks.form is not None or asks.url is None)


def _not_spent(priced: Priced) -> str:
    decision = priced.decision
    why = (
        "this client cannot ask the user (no elicitation)"
        if priced.unasked
        else "the user did not agree"
    )
    return (
        f"nothing was spent: {decision.spends} credits need the user's yes ({decision.why}), "
        f"and {why}; {HOW_TO_APPROVE}"
    )


def _job_id(value: str) -> str:
    if not JOB_ID.fullmatch(value):
        raise ToolError("id: a job id holds letters, digits, - and _ only")
    return value


def _job_note(job: JobOut) -> str:
    if job.state == "awaiting_approval":
        return (
            f"the daemon's budget holds it: nothing is spent until a person approves it "
            f"(`companion jobs approve {job.id}`, or the dock's Approve)"
        )
    if job.state == "done":
        return "done: its files are in the project"
    if job.state in ("failed", "cancelled"):
        return f"{job.state}: {job.error}"
    return "under way: follow it with the job tool"


def build(agents: Agents, name: str = "companion") -> MCPServer:
    """The server of these tools (bound to agents), with their annotations and schemas."""
    return MCPServer(
        name,
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=_tools(agents),
        log_level="WARNING",  # the SDK configures logging if nothing did: quietly
    )


def _tools(agents: Agents) -> list[Tool]:
    # The resolvers bound to this server's agents: the gate prices, then asks.
    async def price_animate(body: dict[str, Any], ctx: Context) -> Priced:
        return await agents.price_animate(body, ctx)

    async def price_character(body: dict[str, Any], ctx: Context) -> Priced:
        return await agents.price_character(body, ctx)

    def ask_animate(
        priced: Annotated[Priced, Resolve(price_animate)], ctx: Context
    ) -> Elicit[Approval] | Priced:
        return agents.question("an animation", priced, ctx)

    def ask_character(
        priced: Annotated[Priced, Resolve(price_character)], ctx: Context
    ) -> Elicit[Approval] | Priced:
        return agents.question("a character's moves", priced, ctx)

    async def animate(
        body: dict[str, Any],
        ctx: Context,
        priced: Annotated[Priced, Resolve(price_animate)],
        answer: Annotated[ElicitationResult[Approval], Resolve(ask_animate)],
    ) -> AnimateDone:
        return await agents.animate(body, ctx, priced, answer)

    async def character(
        body: dict[str, Any],
        ctx: Context,
        priced: Annotated[Priced, Resolve(price_character)],
        answer: Annotated[ElicitationResult[Approval], Resolve(ask_character)],
    ) -> CharacterDone:
        return await agents.character(body, ctx, priced, answer)

    async def quote(body: dict[str, Any], ctx: Context) -> AgentQuoteOut:
        return await agents.quote(body, ctx)

    async def character_quote(body: dict[str, Any], ctx: Context) -> AgentCharacterQuoteOut:
        return await agents.character_quote(body, ctx)

    async def recut(body: dict[str, Any], ctx: Context) -> AnimateDone:
        return await agents.recut(body, ctx)

    async def credits(body: dict[str, Any], ctx: Context) -> CreditsOut:
        return await agents.credits(body, ctx)

    def plain(method: Callable[[dict[str, Any]], Awaitable[Model]]) -> Any:
        async def tool(body: dict[str, Any]) -> Model:
            return await method(body)

        tool.__annotations__["return"] = method.__annotations__["return"]
        return tool

    made: list[Tool] = []
    table: list[tuple[str, Any, type[BaseModel], ToolAnnotations, Any]] = [
        ("quote", quote, AnimateIn, READ, Agents.quote),
        ("animate", animate, AnimateIn, PAYS, Agents.animate),
        ("character_quote", character_quote, CharacterIn, READ, Agents.character_quote),
        ("character", character, CharacterIn, PAYS, Agents.character),
        ("recut", recut, RecutArgs, FREE_WRITE, Agents.recut),
        ("job", plain(agents.job), JobRef, READ, Agents.job),
        ("jobs", plain(agents.jobs), Nothing, READ, Agents.jobs),
        ("cancel", plain(agents.cancel), JobRef, FREE_WRITE, Agents.cancel),
        ("generations", plain(agents.generations), GenerationsArgs, READ, Agents.generations),
        ("credits", credits, Nothing, READ, Agents.credits),
        ("models", plain(agents.models), Nothing, READ, Agents.models),
        ("projects", plain(agents.projects), Nothing, READ, Agents.projects),
    ]
    for name, fn, model, annotations, documented in table:
        tool = Tool.from_function(
            fn,
            name=name,
            description=" ".join((documented.__doc__ or "").split()),
            annotations=annotations,
            structured_output=True,
        )
        tool.parameters = model.model_json_schema()
        tool.fn_metadata.arg_model = _Raw
        made.append(tool)
    return made
