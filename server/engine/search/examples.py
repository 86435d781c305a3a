# ruff: noqa: E501, W291 (the examples keep their code's own lines)
"""The real fixes each edit class is known by (registry.py): minimal before/after pairs, each
reduced from one fix commit of a public repository and cited as
`owner/repo@commit:path::function`. Reduced means: statements that play no part in the fix are
removed (delta debugging, while the class still makes the fix), so an example illustrates the
fix pattern; it is not the project's code.

`lines` are the example's changed lines (1-based in `before`), where the search is told to look;
`raises` and `failed_with` stand for the failing tests' evidence (engine/evidence.py) that the fix
commit's own tests gave (a class that needs evidence is shown it). Found by mining the histories of public repositories for commits that
change one function by a few lines and say they fix something, then asking every class whether
it makes the commit's fix.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    source: str  # owner/repo@commit:path::function
    before: str  # the buggy function, reduced
    after: str  # the fixed function, reduced
    lines: tuple[int, ...]  # the changed lines of `before` (1-based)
    raises: tuple[str, ...] = ()
    failed_with: tuple[str, ...] = ()  # what the failing tests raised (engine/evidence.py)

    @property
    def class_name(self) -> str:
        """The class of a method (`Query` of `...::Query.__getattr__`); "" for a function."""
        qualname = self.source.rsplit("::", 1)[-1]
        return qualname.rsplit(".", 1)[0] if "." in qualname else ""


def _e(
    source: str,
    before: str,
    after: str,
    *lines: int,
    raises: tuple[str, ...] = (),
    failed_with: tuple[str, ...] = (),
) -> Example:
    return Example(source, before, after, tuple(lines), raises, failed_with)


# One real fix that two classes make (the integer next to 0, and the function's own literal 1).
_FLEX_GROW = _e(
    "Kozea/WeasyPrint@2c7caf5fd2ed:weasyprint/css/validation/expanders.py::expand_flex",
    """\
def expand_flex():
    if keyword == 'none':
        yield 'flex-basis', 'auto'
    else:
        grow, shrink, basis = 0, 1, Dimension(0, 'px')
""",
    """\
def expand_flex():
    if keyword == 'none':
        yield 'flex-basis', 'auto'
    else:
        grow, shrink, basis = 1, 1, Dimension(0, 'px')
""",
    5,
)

EXAMPLES: dict[str, tuple[Example, ...]] = {
    "arithmetic-operator": (
        _e(
            "PyCQA/pycodestyle@86bc1fc34646:pep8.py::whitespace_around_named_parameter_equals",
            """\
def whitespace_around_named_parameter_equals(tokens):
    for token_type, text, start, end, line in tokens:
        parens += 1
""",
            """\
def whitespace_around_named_parameter_equals(tokens):
    for token_type, text, start, end, line in tokens:
        parens -= 1
""",
            3,
        ),
        _e(
            "buildbot/buildbot@80417f2c39c7:master/buildbot/steps/python_twisted.py::Trial.setupEnvironment",
            """\
def setupEnvironment(self, cmd):
    if e is None:
        cmd.args['env'] = {'PYTHONPATH': self.testpath}
    else:
        pathset = set([self.testpath]) ^ set(ppath)
""",
            """\
def setupEnvironment(self, cmd):
    if e is None:
        cmd.args['env'] = {'PYTHONPATH': self.testpath}
    else:
        pathset = set([self.testpath]) | set(ppath)
""",
            5,
        ),
        _e(
            "dask/dask@b3bdfaefd4d6:dask_expr/_collection.py::DataFrame.shape",
            """\
def shape(self):
    return self.size / max(len(self.columns), 1), len(self.columns)
""",
            """\
def shape(self):
    return self.size // max(len(self.columns), 1), len(self.columns)
""",
            2,
        ),
        _e(
            "html5lib/html5lib-python@19686c8ca381:html5lib/html5parser.py::getPhases.<locals>.InForeignContentPhase.processStartTag",
            """\
def processStartTag(self, token):
    if (token["name"] in self.breakoutElements or
        (set(token["data"].keys()) | set(["size"]))):
        return token
""",
            """\
def processStartTag(self, token):
    if (token["name"] in self.breakoutElements or
        (set(token["data"].keys()) & set(["size"]))):
        return token
""",
            3,
        ),
    ),
    "boolean-literal": (
        _e(
            "aio-libs/aiohttp@27b586b3cb5f:aiohttp/streams.py::EmptyStreamReader.readchunk",
            """\
async def readchunk(self):
    return (b'', False)
""",
            """\
async def readchunk(self):
    return (b'', True)
""",
            2,
        ),
        _e(
            "buildbot/buildbot@21e2388fc059:master/buildbot/process/builder.py::Builder.getNewestCompleteTime",
            """\
def getNewestCompleteTime(self):
    completed = yield self.master.data.get(
        ('builders', bldrid, 'buildrequests'),
        [resultspec.Filter('complete', 'eq', [False])])
""",
            """\
def getNewestCompleteTime(self):
    completed = yield self.master.data.get(
        ('builders', bldrid, 'buildrequests'),
        [resultspec.Filter('complete', 'eq', [True])])
""",
            4,
        ),
        _e(
            "dask/dask@820d8c25d113:dask_expr/_groupby.py::GroupBy.__init__",
            """\
def __init__(self, observed):
    self.observed = (
        observed if observed is not None else True if not PANDAS_GE_300 else True
    )
""",
            """\
def __init__(self, observed):
    self.observed = (
        observed if observed is not None else False if not PANDAS_GE_300 else True
    )
""",
            3,
        ),
        _e(
            "ipython/ipython@1284ba39b709:IPython/core/completer.py::IPCompleter._jedi_matches",
            """\
def _jedi_matches(self):
    try_jedi = False
""",
            """\
def _jedi_matches(self):
    try_jedi = True
""",
            2,
        ),
    ),
    "boolean-operator": (
        _e(
            "Python-Markdown/markdown@542324b626e9:markdown/inlinepatterns.py::LinkPattern.sanitize_url",
            """\
def sanitize_url(self):
    if netloc == '' or scheme not in locless_schemes:
        return ''
""",
            """\
def sanitize_url(self):
    if netloc == '' and scheme not in locless_schemes:
        return ''
""",
            2,
        ),
        _e(
            "celery/celery@19acb368f1c7:celery/worker.py::TaskWrapper.on_failure",
            'def on_failure(self):\n    send_error_email = SEND_CELERY_TASK_ERROR_EMAILS or not \\\n            getattr(task_obj, "disable_error_emails", False)\n',
            'def on_failure(self):\n    send_error_email = SEND_CELERY_TASK_ERROR_EMAILS and not \\\n            getattr(task_obj, "disable_error_emails", False)\n',
            2,
        ),
        _e(
            "html5lib/html5lib-python@ad2869b58cf6:src/html5lib/sanitizer.py::HTMLSanitizerMixin.sanitize_token",
            """\
def sanitize_token(self):
    for attr in self.attr_val_is_uri:
        if (re.match("^[a-z0-9][-+.a-z0-9]*:",val_unescaped) or
            (val_unescaped.split(':')[0] not in 
             self.allowed_protocols)):
            del attrs[attr]
""",
            """\
def sanitize_token(self):
    for attr in self.attr_val_is_uri:
        if (re.match("^[a-z0-9][-+.a-z0-9]*:",val_unescaped) and
            (val_unescaped.split(':')[0] not in 
             self.allowed_protocols)):
            del attrs[attr]
""",
            3,
        ),
        _e(
            "ipython/ipython@5d06103df7b0:IPython/nbconvert/exporters/pdf.py::PDFExporter.run_command",
            """\
def run_command(self):
    if sys.platform == 'win32' and sys.version_info < (3,0):
        command = [c.encode('cp1252') for c in command]
""",
            """\
def run_command(self):
    if sys.platform == 'win32' or sys.version_info < (3,0):
        command = [c.encode('cp1252') for c in command]
""",
            2,
        ),
    ),
    "comparison-operator": (
        _e(
            "Kozea/WeasyPrint@c35b7070a9cc:weasyprint/css/validation/descriptors.py::src",
            """\
def src(tokens, base_url):
    if len(tokens) > 2:
        url = get_url(token, base_url)
""",
            """\
def src(tokens, base_url):
    if len(tokens) <= 2:
        url = get_url(token, base_url)
""",
            2,
        ),
        _e(
            "Pylons/webob@b6766d737178:webob/__init__.py::Request.__init__",
            """\
def __init__(self, decode_param_names):
    if decode_param_names is NoDefault:
        self.__dict__['decode_param_names'] = decode_param_names
""",
            """\
def __init__(self, decode_param_names):
    if decode_param_names is not NoDefault:
        self.__dict__['decode_param_names'] = decode_param_names
""",
            2,
        ),
        _e(
            "Textualize/rich@932e26b6508c:rich/_windows.py::get_windows_console_features",
            """\
def get_windows_console_features():
    truecolor = win_version.major > 10 or (
        win_version.build > 15063
    )
""",
            """\
def get_windows_console_features():
    truecolor = win_version.major > 10 or (
        win_version.build >= 15063
    )
""",
            3,
        ),
        _e(
            "aio-libs/aiohttp@5afac5580cd4:aiohttp/web_protocol.py::RequestHandler._process_keepalive",
            """\
def _process_keepalive(self):
    if now <= close_time:
        return
""",
            """\
def _process_keepalive(self):
    if now < close_time:
        return
""",
            2,
        ),
    ),
    "deleted-statement": (
        _e(
            "Kozea/WeasyPrint@76c3a47607bd:weasyprint/formatting_structure/boxes.py::Box.copy",
            """\
def copy(self):
    new_box.style = self.style
    return new_box
""",
            """\
def copy(self):
    return new_box
""",
            2,
        ),
        _e(
            "PyCQA/flake8@137b45ac2f65:src/flake8/api/legacy.py::get_style_guide",
            """\
def get_style_guide():
    application.make_notifier()
    return StyleGuide(application)
""",
            """\
def get_style_guide():
    return StyleGuide(application)
""",
            2,
        ),
        _e(
            "Python-Markdown/markdown@7942471746b5:markdown/extensions/footnotes.py::FootnoteTreeprocessor.run",
            """\
def run(self):
    node, isText = result
    fnPlaceholder.parent.replaceChild(fnPlaceholder, footnotesDiv)
""",
            """\
def run(self):
    node, isText = result
""",
            3,
        ),
        _e(
            "Supervisor/supervisor@e19cbc185dfa:src/supervisor/process.py::Subprocess.stop",
            """\
def stop(self):
    self.drain()
    return self.kill(self.config.stopsignal)
""",
            """\
def stop(self):
    return self.kill(self.config.stopsignal)
""",
            2,
        ),
    ),
    "converted-value": (
        _e(
            "joke2k/faker@8d1a2bd0159d:faker/utils/loading.py::get_path",
            """\
def get_path(module):
    path = Path(module.__file__).parent
    return path
""",
            """\
def get_path(module):
    path = Path(module.__file__).parent
    return str(path)
""",
            3,
            failed_with=("TypeError",),
        ),
        _e(
            "pallets/werkzeug@a1717df563a9:werkzeug/debug/__init__.py::DebuggedApplication.check_pin_trust",
            """\
def check_pin_trust(self, environ):
    ts, pin_hash = val.split("|", 1)
    return (time.time() - PIN_TIME) < ts
""",
            """\
def check_pin_trust(self, environ):
    ts, pin_hash = val.split("|", 1)
    return (time.time() - PIN_TIME) < int(ts)
""",
            3,
            failed_with=("TypeError",),
        ),
        _e(
            "networkx/networkx@f1cbc2079c98:networkx/algorithms/bipartite/projection.py::projected_graph",
            """\
def projected_graph(B, nodes, multigraph=False):
    nparallel = len(set(B[u]) & set(B[n])) / 2
    G.add_edges_from([(u, n)] * nparallel)
""",
            """\
def projected_graph(B, nodes, multigraph=False):
    nparallel = len(set(B[u]) & set(B[n])) / 2
    G.add_edges_from([(u, n)] * int(nparallel))
""",
            3,
            failed_with=("TypeError",),
        ),
        _e(
            "scrapy/scrapy@65fb67f2dbdb:scrapy/crawler.py::CrawlerRunner.stop",
            """\
def stop(self):
    return defer.DeferredList([c.stop() for c in self.crawlers])
""",
            """\
def stop(self):
    return defer.DeferredList([c.stop() for c in list(self.crawlers)])
""",
            2,
            failed_with=("TypeError",),
        ),
        _e(
            "celery/kombu@74fbe02a33e4:kombu/connection.py::Connection._init_params",
            """\
def _init_params(self, hostname, heartbeat):
    self.hostname = hostname
    self.heartbeat = heartbeat
""",
            """\
def _init_params(self, hostname, heartbeat):
    self.hostname = hostname
    self.heartbeat = float(heartbeat)
""",
            3,
            failed_with=("TypeError",),
        ),
    ),
    "none-test": (
        _e(
            "Pylons/webob@d33422d0ae99:webob/request.py::BaseRequest.copy_body",
            """\
def copy_body(self):
    length = self.content_length
    if length:
        self.body = self.body_file.read(length)
""",
            """\
def copy_body(self):
    length = self.content_length
    if length is not None:
        self.body = self.body_file.read(length)
""",
            3,
        ),
        _e(
            "Python-Markdown/markdown@1337d0891757:markdown/extensions/admonition.py::AdmonitionProcessor.parse_content",
            """\
def parse_content(self, parent, block):
    last_child = self.lastChild(sibling)
    while last_child:
        sibling = last_child
        last_child = self.lastChild(sibling)
""",
            """\
def parse_content(self, parent, block):
    last_child = self.lastChild(sibling)
    while last_child is not None:
        sibling = last_child
        last_child = self.lastChild(sibling)
""",
            3,
        ),
        _e(
            "joke2k/faker@eae0fb0a70f8:faker/providers/address/__init__.py::Provider.geo_coordinate",
            """\
def geo_coordinate(self, center=None, radius=0.001):
    if not center:
        return random.randint(-180000000, 180000000) / 1000000.0
    else:
        center = float(center)
""",
            """\
def geo_coordinate(self, center=None, radius=0.001):
    if center is None:
        return random.randint(-180000000, 180000000) / 1000000.0
    else:
        center = float(center)
""",
            2,
        ),
        _e(
            "tornadoweb/tornado@95a25b197e82:tornado/gen.py::Multi.get_result",
            """\
def get_result(self):
    result = (i.get_result() for i in self.children)
    if self.keys:
        return dict(zip(self.keys, result))
    else:
        return list(result)
""",
            """\
def get_result(self):
    result = (i.get_result() for i in self.children)
    if self.keys is not None:
        return dict(zip(self.keys, result))
    else:
        return list(result)
""",
            3,
        ),
        _e(
            "twisted/twisted@4d7733cd0d63:src/twisted/web/http.py::Request.loseConnection",
            """\
def loseConnection(self):
    if self.channel:
        self.channel.loseConnection()
""",
            """\
def loseConnection(self):
    if self.channel is not None:
        self.channel.loseConnection()
""",
            2,
        ),
    ),
    "empty-guarded-list": (
        _e(
            "encode/httpx@420911bc693e:httpx/_decoders.py::ByteChunker.decode",
            """\
def decode(self, content):
    if self._chunk_size is None:
        return [content]
    self._buffer.write(content)
""",
            """\
def decode(self, content):
    if self._chunk_size is None:
        return [content] if content else []
    self._buffer.write(content)
""",
            3,
        ),
        _e(
            "encode/httpx@1e110964736a:httpx/_decoders.py::TextChunker.decode",
            """\
def decode(self, content):
    if self._chunk_size is None:
        return [content]
    self._buffer.write(content)
""",
            """\
def decode(self, content):
    if self._chunk_size is None:
        return [content] if content else []
    self._buffer.write(content)
""",
            3,
        ),
        _e(
            "davidhalter/jedi@a5cb308d1fc5:functions.py::get_definition",
            """\
def get_definition(source, line, column, source_path):
    op = f.get_operator_under_cursor()
    scopes = set([keywords.get_operator(op)])
""",
            """\
def get_definition(source, line, column, source_path):
    op = f.get_operator_under_cursor()
    scopes = set([keywords.get_operator(op)] if op else [])
""",
            3,
        ),
    ),
    "none-check": (
        _e(
            "tornadoweb/tornado@f0df94ca6b09:tornado/web.py::RequestHandler.get_cookie",
            """\
def get_cookie(self, name, default=None):
    if name in self.request.cookies:
        return self.request.cookies[name].value
    return default
""",
            """\
def get_cookie(self, name, default=None):
    if self.request.cookies is not None and name in self.request.cookies:
        return self.request.cookies[name].value
    return default
""",
            2,
        ),
        _e(
            "pytest-dev/pytest@6fb7269979f8:src/_pytest/terminal.py::TerminalReporter.write_fspath_result",
            """\
def write_fspath_result(self, nodeid, res, **markup):
    fspath = self.config.rootdir.join(nodeid.split("::")[0])
    if fspath != self.currentfspath:
        self.currentfspath = fspath
""",
            """\
def write_fspath_result(self, nodeid, res, **markup):
    fspath = self.config.rootdir.join(nodeid.split("::")[0])
    if self.currentfspath is None or fspath != self.currentfspath:
        self.currentfspath = fspath
""",
            3,
        ),
        _e(
            "pypa/pip@0a1571ba03d8:src/pip/_internal/models/link.py::Link.is_hash_allowed",
            """\
def is_hash_allowed(self, hashes):
    if not self.has_hash:
        return False
    return hashes.is_hash_allowed(self.hash_name, hex_digest=self.hash)
""",
            """\
def is_hash_allowed(self, hashes):
    if hashes is None or not self.has_hash:
        return False
    return hashes.is_hash_allowed(self.hash_name, hex_digest=self.hash)
""",
            2,
        ),
        _e(
            "python/mypy@53d6e24f9b51:mypy/checkexpr.py::ExpressionChecker.try_infer_partial_type",
            """\
def try_infer_partial_type(self, e):
    partial_type = cast(PartialType, var.type)
    if partial_type.type is None:
        return
    typename = partial_type.type.fullname()
""",
            """\
def try_infer_partial_type(self, e):
    partial_type = cast(PartialType, var.type)
    if partial_type is None or partial_type.type is None:
        return
    typename = partial_type.type.fullname()
""",
            3,
        ),
        _e(
            "spyder-ide/spyder@6fe04d458531:spyder/utils/conda.py::get_spyder_conda_channel",
            """\
def get_spyder_conda_channel():
    channel_url = package_info["base_url"]
    if "<develop>" in channel_url:
        channel_url = None
    return channel, channel_url
""",
            """\
def get_spyder_conda_channel():
    channel_url = package_info["base_url"]
    if channel_url is not None and "<develop>" in channel_url:
        channel_url = None
    return channel, channel_url
""",
            3,
        ),
    ),
    "dropped-condition": (
        _e(
            "PyCQA/isort@bb2dce7890ba:isort/isort.py::SortImports._import_type",
            """\
def _import_type(line):
    if "isort:skip" in line:
        return
    elif line.startswith('from ') and "import" in line:
        return "from"
""",
            """\
def _import_type(line):
    if "isort:skip" in line:
        return
    elif line.startswith('from '):
        return "from"
""",
            4,
        ),
        _e(
            "Pylons/webob@00652b83bdb9:webob/request.py::LimitedLengthFile.readline",
            "def readline(self):\n    if not r or not r.endswith('\\n'):\n        self._check_disconnect()\n",
            """\
def readline(self):
    if not r:
        self._check_disconnect()
""",
            2,
        ),
        _e(
            "Textualize/rich@6da3b2a45d2d:rich/live.py::Live.__init__",
            """\
def __init__(self, *, refresh_per_second):
    assert (
        refresh_per_second is None or refresh_per_second > 0
    ), "refresh_per_second must be > 0"
""",
            """\
def __init__(self, *, refresh_per_second):
    assert refresh_per_second > 0, "refresh_per_second must be > 0"
""",
            2,
            3,
            4,
        ),
        _e(
            "dask/dask@c109b657f3b1:dask_expr/_merge.py::Merge._filter_passthrough_available",
            """\
def _filter_passthrough_available(self, parent, dependents):
    if is_filter_pushdown_available(self, parent, dependents) or isinstance(
        parent.predicate, And
    ):
        return True
""",
            """\
def _filter_passthrough_available(self, parent, dependents):
    if is_filter_pushdown_available(self, parent, dependents):
        return True
""",
            2,
            3,
            4,
        ),
    ),
    "dropped-not": (
        _e(
            "buildbot/buildbot@18170a4b825a:master/buildbot/steps/source/svn.py::SVN.purge.<locals>.parseAndRemove",
            """\
def parseAndRemove():
    if len(files) == 0:
        d = defer.succeed(0)
    else:
        if not self.slaveVersionIsOlderThan('rmdir', '2.14'):
            d = self.removeFiles(files)
""",
            """\
def parseAndRemove():
    if len(files) == 0:
        d = defer.succeed(0)
    else:
        if self.slaveVersionIsOlderThan('rmdir', '2.14'):
            d = self.removeFiles(files)
""",
            5,
        ),
        _e(
            "pallets/jinja@bec76c789fa8:ext/djangojinja2.py::create_env",
            """\
def create_env():
    return Environment(auto_reload=not settings.TEMPLATE_DEBUG)
""",
            """\
def create_env():
    return Environment(auto_reload=settings.TEMPLATE_DEBUG)
""",
            2,
        ),
        _e(
            "pyinstaller/pyinstaller@11287882a250:PyInstaller/hooks/hook-_tkinter.py::hook",
            """\
def hook():
    if is_win:
        tcl_tk = find_tk_win(binaries)
    elif is_darwin:
        tcl_tk = find_tk_darwin(binaries)
    elif not is_unix:
        tcl_tk = find_tk_unix(binaries)
""",
            """\
def hook():
    if is_win:
        tcl_tk = find_tk_win(binaries)
    elif is_darwin:
        tcl_tk = find_tk_darwin(binaries)
    elif is_unix:
        tcl_tk = find_tk_unix(binaries)
""",
            6,
        ),
        _e(
            "pypa/setuptools@4d38fb9841d2:setuptools/command/easy_install.py::easy_install.write_script",
            """\
def write_script(self):
    if not self.dry_run:
        return
""",
            """\
def write_script(self):
    if self.dry_run:
        return
""",
            2,
        ),
    ),
    "dropped-term": (
        _e(
            "PyCQA/pyflakes@6dce640d3b5a:pyflakes/reporter.py::Reporter.syntaxError",
            'def syntaxError(self, offset):\n    self._stderr.write(" " * (offset + 1) + "^\\n")\n',
            'def syntaxError(self, offset):\n    self._stderr.write(" " * offset + "^\\n")\n',
            2,
        ),
        _e(
            "beetbox/beets@ce022a64f6fa:beets/library.py::PathQuery.col_clause",
            """\
def col_clause(self):
    file_blob = buffer(file_pattern + b'%')
""",
            """\
def col_clause(self):
    file_blob = buffer(file_pattern)
""",
            2,
        ),
        _e(
            "buildbot/buildbot@2add1d92b064:master/buildbot/db/logs.py::LogsConnectorComponent.getLogLines.<locals>.thd",
            "def thd(conn):\n    for row in conn.execute(q):\n        for _ in xrange(count):\n            idx = content.rindex('\\n', 0, idx - 1)\n",
            "def thd(conn):\n    for row in conn.execute(q):\n        for _ in xrange(count):\n            idx = content.rindex('\\n', 0, idx)\n",
            4,
        ),
        _e(
            "celery/celery@3268526a5edc:celery/utils/timeutils.py::utcoffset",
            """\
def utcoffset():
    return (__timezone__ + __altzone__) // 3600
""",
            """\
def utcoffset():
    return __altzone__ // 3600
""",
            2,
        ),
    ),
    "integer-literal": (
        _FLEX_GROW,  # 0 -> 1: both the integer class and the function's-literal class make it
        _e(
            "Textualize/rich@73ee8232e7ea:rich/cells.py::get_character_cell_size",
            """\
def get_character_cell_size():
    return 0
""",
            """\
def get_character_cell_size():
    return 1
""",
            2,
        ),
        _e(
            "boto/botocore@1c73a6fa3bc0:botocore/awsrequest.py::AWSConnection._is_100_continue_status",
            """\
def _is_100_continue_status(self):
    return (
        len(parts) >= 3
    )
""",
            """\
def _is_100_continue_status(self):
    return (
        len(parts) >= 2
    )
""",
            3,
        ),
        _e(
            "buildbot/buildbot@6965c6f82681:master/buildbot/clients/tryclient.py::GitExtractor.parseTrackingBranch",
            """\
def parseTrackingBranch(self):
    remote_branch = ref.split("/", 3)[-1]
""",
            """\
def parseTrackingBranch(self):
    remote_branch = ref.split("/", 2)[-1]
""",
            2,
        ),
    ),
    "missing-f-prefix": (
        _e(
            "PyCQA/isort@b0c92df90f46:isort/identify.py::Import.statement",
            """\
def statement(self):
    full_path += " as {self.alias}"
""",
            """\
def statement(self):
    full_path += f" as {self.alias}"
""",
            2,
        ),
        _e(
            "Textualize/rich@ccb49a279a6d:rich/pretty.py::_get_braces_for_array",
            """\
def _get_braces_for_array(_object):
    return (f"array({_object.typecode!r}, [", "])", "array({_object.typecode!r})")
""",
            """\
def _get_braces_for_array(_object):
    return (f"array({_object.typecode!r}, [", "])", f"array({_object.typecode!r})")
""",
            2,
        ),
        _e(
            "joke2k/faker@3b1beb3b9c11:faker/providers/python/__init__.py::Provider.pyobject",
            """\
def pyobject(self, object_type):
    if object_type is None:
        return None
    else:
        raise ValueError("Object type `{object_type}` is not supported by `pyobject` function")
""",
            """\
def pyobject(self, object_type):
    if object_type is None:
        return None
    else:
        raise ValueError(f"Object type `{object_type}` is not supported by `pyobject` function")
""",
            5,
        ),
        _e(
            "psf/black@72a84d4099f2:src/black/handle_ipynb_magics.py::MagicFinder.visit_Assign",
            """\
def visit_Assign(self, node):
    if node.value.func.attr == "getoutput":
        src = f"!{args[0]}"
    else:
        raise AssertionError(
            "Unexpected IPython magic {node.value.func.attr!r} found. "
            "Please report a bug on https://github.com/psf/black/issues."
        ) from None
""",
            """\
def visit_Assign(self, node):
    if node.value.func.attr == "getoutput":
        src = f"!{args[0]}"
    else:
        raise AssertionError(
            f"Unexpected IPython magic {node.value.func.attr!r} found. "
            "Please report a bug on https://github.com/psf/black/issues."
        ) from None
""",
            6,
        ),
    ),
    "missing-return": (
        _e(
            "beetbox/beets@370df6253d4c:beets/autotag/hooks.py::TrackInfo.dup_trackinfo",
            """\
def dup_trackinfo(self):
    dupe = TrackInfo()
""",
            """\
def dup_trackinfo(self):
    dupe = TrackInfo()
    return dupe
""",
            2,
        ),
        _e(
            "buildbot/buildbot@a8ff070eebb0:master/buildbot/schedulers/trysched.py::Try_Userpass.stopService",
            """\
def stopService(self):
    d = defer.maybeDeferred(TryBase.stopService, self)
""",
            """\
def stopService(self):
    d = defer.maybeDeferred(TryBase.stopService, self)
    return d
""",
            2,
        ),
        _e(
            "celery/celery@4e8efe187f03:celery/messaging.py::TaskPublisher._delay_task",
            """\
def _delay_task(self):
    task_id = str(uuid.uuid4())
""",
            """\
def _delay_task(self):
    task_id = str(uuid.uuid4())
    return task_id
""",
            2,
        ),
        _e(
            "mitmproxy/mitmproxy@9ee8f47cc67a:mitmproxy/io/db.py::DbHandler.load",
            """\
def load(self):
    flows = []
""",
            """\
def load(self):
    flows = []
    return flows
""",
            2,
        ),
    ),
    "negated-condition": (
        _e(
            "beetbox/beets@af71cebeeb4c:beets/util/artresizer.py::ArtResizer.reformat",
            """\
def reformat(self, path_in):
    if self.local:
        return path_in
""",
            """\
def reformat(self, path_in):
    if not self.local:
        return path_in
""",
            2,
        ),
        _e(
            "ipython/ipython@8f2d5982a48e:IPython/nbconvert/post_processors/pdf.py::PDFPostProcessor.call",
            """\
def call(self):
        stdout = null if self.verbose else None
""",
            """\
def call(self):
        stdout = null if not self.verbose else None
""",
            2,
        ),
        _e(
            "pallets/werkzeug@ca8d0f44afbf:werkzeug/debug/__init__.py::DebuggedApplication.__init__",
            """\
def __init__(self, console_init_func):
    if console_init_func:
        console_init_func = dict
""",
            """\
def __init__(self, console_init_func):
    if not console_init_func:
        console_init_func = dict
""",
            2,
        ),
        _e(
            "psf/requests@f1ba27faa2b9:requests/adapters.py::HTTPAdapter.cert_verify",
            """\
def cert_verify(self, conn, cert):
    if isinstance(cert, basestring):
        conn.key_file = cert[1]
""",
            """\
def cert_verify(self, conn, cert):
    if not isinstance(cert, basestring):
        conn.key_file = cert[1]
""",
            2,
        ),
    ),
    "other-attribute": (
        _e(
            "aio-libs/aiohttp@319d07f89890:aiohttp/multipart.py::BodyPartReaderPayload.__init__",
            """\
def __init__(self, value):
    if value.filename is not None:
        params['filename'] = value.name
""",
            """\
def __init__(self, value):
    if value.filename is not None:
        params['filename'] = value.filename
""",
            3,
        ),
        _e(
            "beetbox/beets@225c21b90fb9:beetsplug/thumbnails.py::GioURI.__init__",
            """\
def __init__(self):
    self.libgio.g_file_get_uri.argtypes = [ctypes.c_char_p]
    self.libgio.g_file_new_for_path.restype = ctypes.c_void_p
""",
            """\
def __init__(self):
    self.libgio.g_file_new_for_path.argtypes = [ctypes.c_char_p]
    self.libgio.g_file_new_for_path.restype = ctypes.c_void_p
""",
            2,
        ),
        _e(
            "bottlepy/bottle@cb7a333fa7b3:bottle.py::Route.get_config",
            """\
def get_config(self, key):
    for conf in (self.config, self.app.conifg):
        if key in conf: return conf[key]
""",
            """\
def get_config(self, key):
    for conf in (self.config, self.app.config):
        if key in conf: return conf[key]
""",
            2,
        ),
        _e(
            "buildbot/buildbot@a34f223f98bf:master/buildbot/schedulers/triggerable.py::Triggerable.stopService",
            """\
def stopService(self):
    if self._waiters:
        for d in self.waiters:
            d.errback(failure.Failure(RuntimeError(msg)))
""",
            """\
def stopService(self):
    if self._waiters:
        for d in self._waiters:
            d.errback(failure.Failure(RuntimeError(msg)))
""",
            3,
        ),
    ),
    "other-literal": (
        _FLEX_GROW,  # 0 -> 1: both the integer class and the function's-literal class make it
        _e(
            "Textualize/rich@73ee8232e7ea:rich/cells.py::get_character_cell_size",
            """\
def get_character_cell_size():
    if codepoint > table[-1][1]:
        return 0
""",
            """\
def get_character_cell_size():
    if codepoint > table[-1][1]:
        return 1
""",
            3,
        ),
        _e(
            "beetbox/beets@ee9e51d3cc6a:beetsplug/convert.py::ConvertPlugin.commands",
            """\
def commands(self):
    cmd.parser.add_option('-a', '--album', action='store_true')
    cmd.parser.add_option('-y', '--yes', action='store')
""",
            """\
def commands(self):
    cmd.parser.add_option('-a', '--album', action='store_true')
    cmd.parser.add_option('-y', '--yes', action='store_true')
""",
            3,
        ),
        _e(
            "boto/botocore@1c73a6fa3bc0:botocore/awsrequest.py::AWSConnection._is_100_continue_status",
            "def _is_100_continue_status(self, maybe_status_line):\n    parts = maybe_status_line.split(None, 2)\n    # Check for HTTP/<version> 100 Continue\\r\\n\n    return (\n        len(parts) >= 3\n    )\n",
            "def _is_100_continue_status(self, maybe_status_line):\n    parts = maybe_status_line.split(None, 2)\n    # Check for HTTP/<version> 100 Continue\\r\\n or HTTP/<version> 100\\r\\n\n    return (\n        len(parts) >= 2\n    )\n",
            3,
            5,
        ),
    ),
    "other-name": (
        _e(
            "Kozea/WeasyPrint@5d95ed45031c:weasyprint/pdf/anchors.py::write_pdf_attachment",
            """\
def write_pdf_attachment(attachment):
    for data in iter(lambda: source.read(4096), b''):
        stream += data
    attachment.md5 = hashlib.md5(data).hexdigest()
""",
            """\
def write_pdf_attachment(attachment):
    for data in iter(lambda: source.read(4096), b''):
        stream += data
    attachment.md5 = hashlib.md5(stream).hexdigest()
""",
            4,
        ),
        _e(
            "Suor/funcy@592b6eaa3b00:funcy/calc.py::cache.<locals>.decorator.<locals>.wrapper",
            """\
def wrapper(*args, **kwargs):
    key = key_func(*args, **kwargs)
    result = func(*key, **kwargs)
""",
            """\
def wrapper(*args, **kwargs):
    key = key_func(*args, **kwargs)
    result = func(*args, **kwargs)
""",
            3,
        ),
        _e(
            "Textualize/rich@681cf914285d:rich/panel.py::Panel.fit",
            """\
def fit(cls, renderable, box, *, subtitle, subtitle_align):
    return cls(
        renderable,
        box,
        subtitle_align=subtitle,
    )
""",
            """\
def fit(cls, renderable, box, *, subtitle, subtitle_align):
    return cls(
        renderable,
        box,
        subtitle_align=subtitle_align,
    )
""",
            5,
        ),
        _e(
            "aio-libs/aiohttp@84064cc87624:aiohttp/web.py::RequestHandler.handle_request",
            """\
def handle_request(self, message, payload):
    app = self._app
    request = Request(app, message, payload,
                      self.transport, self.writer, self.keep_alive_timeout)
    for middleware in reversed(self._middlewares):
        handler = middleware(app, handler)
""",
            """\
def handle_request(self, message, payload):
    app = self._app
    request = Request(app, message, payload,
                      self.transport, self.writer, self.keep_alive_timeout)
    for middleware in reversed(self._middlewares):
        handler = middleware(request, handler)
""",
            6,
        ),
    ),
    "other-returned-name": (
        _e(
            "Pylons/webob@10a3e7313d4f:webob/__init__.py::Request.str_POST",
            """\
def str_POST(self):
    return parsed
    vars = MultiDict.from_fieldstorage(fs)
""",
            """\
def str_POST(self):
    return vars
    vars = MultiDict.from_fieldstorage(fs)
""",
            2,
        ),
        _e(
            "buildbot/buildbot@63ed8a5f7fdf:master/buildbot/process/builder.py::Builder.canStartBuild.<locals>.setupPropsIfNeeded",
            """\
def setupPropsIfNeeded(props):
    return None
""",
            """\
def setupPropsIfNeeded(props):
    return props
""",
            2,
        ),
        _e(
            "html5lib/html5lib-python@13f7c3738c8c:src/html5lib/inputstream.py::HTMLInputStream.seek.<locals>.BufferedStream.read",
            """\
def read(self, chars):
    if chars > len(self.data):
        self.data = ''
    else:
        result = self.data[:chars]
        return resutl
""",
            """\
def read(self, chars):
    if chars > len(self.data):
        self.data = ''
    else:
        result = self.data[:chars]
        return result
""",
            6,
        ),
        _e(
            "joke2k/faker@a79e1d87d9f7:faker/providers/date_time/__init__.py::Provider._parse_date_time",
            """\
def _parse_date_time(cls, value):
    return datetime_to_timestamp(now + timedelta(value))
""",
            """\
def _parse_date_time(cls, value):
    return value
""",
            2,
        ),
    ),
    "same-edit-everywhere": (
        _e(
            "pylint-dev/pylint@2bc5b3c7cd45:testutils.py::TestReporter.add_message",
            """\
def add_message(self, msg_id, location, msg):
    obj = location
    if object:
        object = ':%s' % obj
    self.messages.append('%s: %s' % (object, msg))
""",
            """\
def add_message(self, msg_id, location, msg):
    obj = location
    if obj:
        obj = ':%s' % obj
    self.messages.append('%s: %s' % (obj, msg))
""",
            3,
        ),
        _e(
            "pypa/pip@7bb73f60ad44:src/pip/_internal/vcs/subversion.py::Subversion.get_revision",
            """\
def get_revision(self, location):
    for base, dirs, files in os.walk(location):
        if base == location:
            base_url = dirurl + '/'
        elif not dirurl or not dirurl.startswith(base_url):
            dirs[:] = []
""",
            """\
def get_revision(self, location):
    for base, dirs, files in os.walk(location):
        if base == location:
            base = dirurl + '/'
        elif not dirurl or not dirurl.startswith(base):
            dirs[:] = []
""",
            4,
            5,
        ),
        _e(
            "python/mypy@aff6290f41e1:mypy/output.py::OutputVisitor.visit_class_def",
            """\
def visit_class_def(self, o):
    for i in range(len(o.base_exprs)):
        if o.base_exprs[i].repr:
            self.node(o.base_type_exprs[i])
""",
            """\
def visit_class_def(self, o):
    for i in range(len(o.base_type_exprs)):
        if o.base_type_exprs[i].repr:
            self.node(o.base_type_exprs[i])
""",
            2,
        ),
        _e(
            "sphinx-doc/sphinx@c06b21725d02:sphinx/builders/latex.py::LaTeXBuilder.check_options",
            """\
def check_options(self):
    if self.config.latex_toplevel_sectioning not in (None, 'part'):
        self.warn('invalid: %s' % self.config.latex_top_sectionlevel)
        self.config.latex_top_sectionlevel = None
""",
            """\
def check_options(self):
    if self.config.latex_toplevel_sectioning not in (None, 'part'):
        self.warn('invalid: %s' % self.config.latex_toplevel_sectioning)
        self.config.latex_toplevel_sectioning = None
""",
            3,
        ),
        _e(
            "statsmodels/statsmodels@7874f5d530cd:statsmodels/tsa/statespace/representation.py::Representation.state_cov",
            """\
def state_cov(self, state_cov):
    self._validate_matrix_shape(state_cov.shape, self.nstates, self.nstates, self.nobs)
    return self.nposdef
""",
            """\
def state_cov(self, state_cov):
    self._validate_matrix_shape(state_cov.shape, self.nposdef, self.nposdef, self.nobs)
    return self.nposdef
""",
            2,
        ),
    ),
    "pair": (
        _e(
            "Python-Markdown/markdown@07f2057734b7:markdown/preprocessors.py::HtmlBlockPreprocessor._equal_tags",
            """\
def _equal_tags(self, left_tag, right_tag):
    if ("/" + left_tag) == right_tag:
        return True
    if (left_tag == "--"):
        return True
    elif right_tag[0] != "<":
        return True
""",
            """\
def _equal_tags(self, left_tag, right_tag):
    if ("/" + left_tag) == right_tag:
        return True
    if (left_tag == "--"):
        return True
    elif right_tag[0] == "/":
        return True
""",
            6,
        ),
        _e(
            "bottlepy/bottle@2a5b2c474bf1:bottle.py::FileCheckerThread.run",
            """\
def run(self):
    while not self.status:
        if not exists(self.lockfile):
            self.status = 2
        elif mtime(self.lockfile) < time.time() - self.interval * 2:
            self.status = 1
    if self.status != 5:
        thread.interrupt_main()
""",
            """\
def run(self):
    while not self.status:
        if not exists(self.lockfile):
            self.status = 2
        elif mtime(self.lockfile) < time.time() - self.interval - 5:
            self.status = 1
    if self.status != 5:
        thread.interrupt_main()
""",
            5,
        ),
        _e(
            "ipython/ipython@876016f4c712:IPython/parallel/client/asyncresult.py::AsyncResult.wait",
            """\
def wait(self, timeout):
    try:
        self._result = self._reconstruct_result(results)
    finally:
        if timeout is not None and timeout < 0:
            timeout = 10
""",
            """\
def wait(self, timeout):
    try:
        self._result = self._reconstruct_result(results)
    finally:
        if timeout is None or timeout < 0:
            # cutoff infinite wait at 10s
            timeout = 10
""",
            5,
        ),
        _e(
            "pytest-dev/pytest@59b3693988fc:_pytest/capture.py::_py36_windowsconsoleio_workaround",
            """\
def _py36_windowsconsoleio_workaround():
    if not sys.platform.startswith('win32') and sys.version_info[:2] >= (3, 6):
        return
""",
            """\
def _py36_windowsconsoleio_workaround():
    if not sys.platform.startswith('win32') or sys.version_info[:2] < (3, 6):
        return
""",
            2,
        ),
    ),
    "raised-exception": (
        _e(
            "Kozea/WeasyPrint@f10b3b56c88e:weasyprint/images.py::get_image_from_uri",
            """\
def get_image_from_uri():
    raise ValueError('SVG images are not supported yet')
""",
            """\
def get_image_from_uri():
    raise ImageLoadingError('SVG images are not supported yet')
""",
            2,
            raises=("ImageLoadingError",),
        ),
        _e(
            "Suor/funcy@481f1905fa86:funcy/decorators.py::make_call.<locals>.Call.__getattr__",
            'def __getattr__(self, name):\n    try:\n        return self.__dict__[name]\n    except KeyError:\n        raise NameError("Function %s does not have argument %s" \\\n                        % (func.__name__, name))\n',
            'def __getattr__(self, name):\n    try:\n        return self.__dict__[name]\n    except KeyError:\n        raise AttributeError("Function %s does not have argument %s" \\\n                             % (func.__name__, name))\n',
            5,
            6,
            raises=("AttributeError",),
        ),
        _e(
            "beetbox/beets@63cd799e8d4e:beets/dbcore/query.py::Period.parse",
            """\
def parse(cls, string):
    raise InvalidQueryArgumentTypeError(string,
                                        'a valid datetime string')
""",
            """\
def parse(cls, string):
    raise InvalidQueryArgumentValueError(string,
                                        'a valid datetime string')
""",
            2,
            raises=("InvalidQueryArgumentValueError",),
        ),
        _e(
            "joke2k/faker@a23cb8793c6a:faker/providers/bank/__init__.py::Provider.bank",
            """\
def bank(self):
    raise AttributeError(
        f"The {self.__class__.__name__} provider does not have a 'banks' "
        "attribute. Consider contributing to the project and "
        " adding a 'banks' tuple to enable bank name generation."
    )
""",
            """\
def bank(self):
    raise NotImplementedError(
        f"The {self.__class__.__name__} provider does not have a 'banks' "
        "attribute. Consider contributing to the project and "
        " adding a 'banks' tuple to enable bank name generation."
    )
""",
            2,
            raises=("NotImplementedError",),
        ),
    ),
    "shifted-argument": (
        _e(
            "joke2k/faker@cfffeb82086d:faker/providers/python/__init__.py::Provider.pyfloat",
            """\
def pyfloat(self, min_value, max_value):
    left_number = self.random_int(min_value, max_value)
""",
            """\
def pyfloat(self, min_value, max_value):
    left_number = self.random_int(min_value, max_value - 1)
""",
            2,
        ),
        _e(
            "spyder-ide/spyder@ad999e9f88ac:spyderlib/widgets/pylintgui.py::PylintWidget.set_data",
            """\
def set_data(self):
    self.data.pop(index)
""",
            """\
def set_data(self):
    self.data.pop(index+1)
""",
            2,
        ),
        _e(
            "spyder-ide/spyder@bd9abd3f2267:spyder/widgets/panels/codefolding.py::FoldingPanel.mouseMoveEvent",
            """\
def mouseMoveEvent(self):
    block = FoldScope.find_parent_scope(
        self.editor.document().findBlockByNumber(line))
""",
            """\
def mouseMoveEvent(self):
    block = FoldScope.find_parent_scope(
        self.editor.document().findBlockByNumber(line-1))
""",
            3,
        ),
    ),
    "shifted-bound": (
        _e(
            "beetbox/beets@de213c2b966a:beets/ui/__init__.py::vararg_callback",
            """\
def vararg_callback(value, parser):
    del parser.rargs[:len(value)]
""",
            """\
def vararg_callback(value, parser):
    del parser.rargs[:len(value)-1]
""",
            2,
        ),
        _e(
            "celery/celery@2f516fa1fa37:funtests/stress/stress/suite.py::Suite.run",
            """\
def run(self, repeat):
    it = count() if repeat == float('Inf') else range(int(repeat))
""",
            """\
def run(self, repeat):
    it = count() if repeat == float('Inf') else range(int(repeat) + 1)
""",
            2,
        ),
        _e(
            "pyinstaller/pyinstaller@959624ca3f3b:PyInstaller/loader/pyimod03_importers.py::FrozenImporter.find_module",
            """\
def find_module(self, path):
    for p in path:
        p = p[SYS_PREFIXLEN:]
""",
            """\
def find_module(self, path):
    for p in path:
        p = p[SYS_PREFIXLEN+1:]
""",
            3,
        ),
        _e(
            "pytest-dev/pytest@56e6ae567c85:_pytest/assertion/rewrite.py::_rewrite_test",
            """\
def _rewrite_test(state):
    if (cookie_re.match(source[end1:end2]) is None):
        state._indecode = True
""",
            """\
def _rewrite_test(state):
    if (cookie_re.match(source[end1 + 1:end2]) is None):
        state._indecode = True
""",
            2,
        ),
    ),
    "sibling-method": (
        _e(
            "pallets/flask@ea7a1720779a:flask/wrappers.py::Request.blueprint",
            """\
def blueprint(self):
    if self.url_rule and '.' in self.url_rule.endpoint:
        return self.url_rule.endpoint.split('.', 1)[0]
""",
            """\
def blueprint(self):
    if self.url_rule and '.' in self.url_rule.endpoint:
        return self.url_rule.endpoint.rsplit('.', 1)[0]
""",
            3,
        ),
        _e(
            "Textualize/rich@e1c105b8f0ab:rich/console.py::Console._detect_color_system",
            """\
def _detect_color_system(self):
    term = self._environ.get("TERM", "").strip().lower()
    _term_name, _hyphen, colors = term.partition("-")
    color_system = _TERM_COLORS.get(colors, ColorSystem.STANDARD)
    return color_system
""",
            """\
def _detect_color_system(self):
    term = self._environ.get("TERM", "").strip().lower()
    _term_name, _hyphen, colors = term.rpartition("-")
    color_system = _TERM_COLORS.get(colors, ColorSystem.STANDARD)
    return color_system
""",
            3,
        ),
        _e(
            "tornadoweb/tornado@1ae91f6d58e6:tornado/web.py::RequestHandler._convert_header_value",
            """\
def _convert_header_value(self, value):
    if len(value) > 4000 or re.match(b(r"[\\x00-\\x1f]"), value):
        raise ValueError("Unsafe header value %r", value)
    return value
""",
            """\
def _convert_header_value(self, value):
    if len(value) > 4000 or re.search(b(r"[\\x00-\\x1f]"), value):
        raise ValueError("Unsafe header value %r", value)
    return value
""",
            2,
        ),
        _e(
            "python/mypy@1b19e04d6cfb:mypy/checker.py::ConditionalTypeBinder.pop_frame",
            """\
def pop_frame(self, canskip=True, fallthrough=False):
    result = self.frames.pop()
    options = self.frames_on_escape.get(len(self.frames) - 1, [])
    if canskip:
        options.append(self.frames[-1])
    changed = self.update_from_options(options)
    return (changed, result)
""",
            """\
def pop_frame(self, canskip=True, fallthrough=False):
    result = self.frames.pop()
    options = self.frames_on_escape.pop(len(self.frames) - 1, [])
    if canskip:
        options.append(self.frames[-1])
    changed = self.update_from_options(options)
    return (changed, result)
""",
            3,
        ),
        _e(
            "pypa/setuptools@5802fd80e413:setuptools/command/install_lib.py::install_lib._all_packages",
            """\
def _all_packages(pkg_name):
    while pkg_name:
        yield pkg_name
        pkg_name, sep, child = pkg_name.partition('.')
""",
            """\
def _all_packages(pkg_name):
    while pkg_name:
        yield pkg_name
        pkg_name, sep, child = pkg_name.rpartition('.')
""",
            4,
        ),
    ),
    "own-class-name": (
        _e(
            "html5lib/html5lib-python@b015d7a7befa:html5lib/treebuilders/etree.py::Element.cloneNode",
            """\
def cloneNode(self):
    element = Element(self.name, self.namespace)
    for name, value in self.attributes.iteritems():
        element.attributes[name] = value
    return element
""",
            """\
def cloneNode(self):
    element = type(self)(self.name, self.namespace)
    for name, value in self.attributes.iteritems():
        element.attributes[name] = value
    return element
""",
            2,
        ),
        _e(
            "msiemens/tinydb@f3b18d2a36c0:tinydb/queries.py::Query.__getattr__",
            """\
def __getattr__(self, item):
    query = Query()
    query._path = self._path + (item, )
    query.hashval = ('path', query._path)
    return query
""",
            """\
def __getattr__(self, item):
    query = type(self)()
    query._path = self._path + (item, )
    query.hashval = ('path', query._path)
    return query
""",
            2,
        ),
        _e(
            "pallets/werkzeug@426b98534fa6:werkzeug/routing.py::Rule.empty",
            """\
def empty(self):
    defaults = None
    if self.defaults:
        defaults = dict(self.defaults)
    return Rule(self.rule, defaults, self.subdomain, self.methods,
                self.build_only, self.endpoint, self.strict_slashes,
                self.redirect_to, self.alias, self.host)
""",
            """\
def empty(self):
    defaults = None
    if self.defaults:
        defaults = dict(self.defaults)
    return type(self)(self.rule, defaults, self.subdomain, self.methods,
                self.build_only, self.endpoint, self.strict_slashes,
                self.redirect_to, self.alias, self.host)
""",
            5,
        ),
    ),
    "sibling-argument": (
        _e(
            "beetbox/beets@e3a9e04c0116:beets/dbcore/query.py::BytesQuery.__init__",
            """\
def __init__(self):
    if isinstance(self.pattern, bytes):
        self.buf_pattern = buffer(self.pattern)
    elif isinstance(self.battern, buffer):
        self.pattern = bytes(self.pattern)
""",
            """\
def __init__(self):
    if isinstance(self.pattern, bytes):
        self.buf_pattern = buffer(self.pattern)
    elif isinstance(self.pattern, buffer):
        self.pattern = bytes(self.pattern)
""",
            4,
        ),
        _e(
            "networkx/networkx@b3592c7e4bd3:networkx/readwrite/gexf.py::GEXFWriter.add_viz",
            """\
def add_viz(self):
    if shape.startswith('http'):
        e=Element("{%s}shape"%self.NS_VIZ,
                  uri=str(shape))
    else:
        e=Element("{%s}shape"%self.NS_VIZ,value=str(shape.get))
""",
            """\
def add_viz(self):
    if shape.startswith('http'):
        e=Element("{%s}shape"%self.NS_VIZ,
                  uri=str(shape))
    else:
        e=Element("{%s}shape"%self.NS_VIZ,value=str(shape))
""",
            6,
        ),
        _e(
            "pypa/setuptools@a6f96e770980:setuptools/command/bdist_egg.py::make_zipfile",
            """\
def make_zipfile(base_dir, dry_run):
    if not dry_run:
        for dirname, dirs, files in os.walk(base_dir):
            visit(z, dirname, files)
    else:
        for dirname, dirs, files in os.walk(base_dir):
            visit(None, dirname, file)
""",
            """\
def make_zipfile(base_dir, dry_run):
    if not dry_run:
        for dirname, dirs, files in os.walk(base_dir):
            visit(z, dirname, files)
    else:
        for dirname, dirs, files in os.walk(base_dir):
            visit(None, dirname, files)
""",
            7,
        ),
        _e(
            "pytest-dev/pytest@21be7a259424:src/_pytest/python_api.py::_as_numpy_array",
            """\
def _as_numpy_array(obj):
    if np.isscalar(obj):
        return None
    elif hasattr(obj, "__array__") or hasattr("obj", "__array_interface__"):
        return np.asarray(obj)
""",
            """\
def _as_numpy_array(obj):
    if np.isscalar(obj):
        return None
    elif hasattr(obj, "__array__") or hasattr(obj, "__array_interface__"):
        return np.asarray(obj)
""",
            4,
        ),
    ),
    "swapped-arguments": (
        _e(
            "aio-libs/aiohttp@fdf69992c0e7:aiohttp/protocol.py::HttpPayloadParser.parse_length_payload",
            """\
def parse_length_payload(self, length):
    try:
        while required:
            required -= len(chunk)
    except aiohttp.EofStream:
        raise errors.IncompleteRead(required, length-required)
""",
            """\
def parse_length_payload(self, length):
    try:
        while required:
            required -= len(chunk)
    except aiohttp.EofStream:
        raise errors.IncompleteRead(length-required, required)
""",
            6,
        ),
        _e(
            "buildbot/buildbot@34f327c05319:master/buildbot/monkeypatches/testcase_assert.py::_assertRegexpMatches",
            """\
def _assertRegexpMatches(self, text, regexp, msg):
    if not re.search(text, regexp):
        self.fail(msg)
""",
            """\
def _assertRegexpMatches(self, text, regexp, msg):
    if not re.search(regexp, text):
        self.fail(msg)
""",
            2,
        ),
        _e(
            "celery/celery@b0f42919f173:celery/routes.py::Router.route",
            """\
def route(self, options):
    return merge(options, self.expand_destination(route))
""",
            """\
def route(self, options):
    return merge(self.expand_destination(route), options)
""",
            2,
        ),
        _e(
            "httpie/cli@56d33a8e5120:httpie/models.py::Environment.__init__",
            """\
def __init__(self):
    if isinstance(AnsiToWin32, self.stdout):
        actual_stdout = self.stdout.wrapped
""",
            """\
def __init__(self):
    if isinstance(self.stdout, AnsiToWin32):
        actual_stdout = self.stdout.wrapped
""",
            2,
        ),
    ),
    "swapped-statements": (
        _e(
            "PyCQA/pyflakes@20c7c950a79f:pyflakes/checker.py::Checker.FUNCTIONDEF",
            """\
def FUNCTIONDEF(self, node):
    self.addBinding(node, FunctionDefinition(node.name, node))
    self.LAMBDA(node)
""",
            """\
def FUNCTIONDEF(self, node):
    self.LAMBDA(node)
    self.addBinding(node, FunctionDefinition(node.name, node))
""",
            1,
            2,
            3,
        ),
        _e(
            "beetbox/beets@9137b5c2f3eb:beetsplug/lyrics.py::_scrape_strip_cruft",
            """\
def _scrape_strip_cruft(html):
    html = TAG_RE.sub('', html)
    html = COMMENT_RE.sub('', html)
""",
            """\
def _scrape_strip_cruft(html):
    html = COMMENT_RE.sub('', html)
    html = TAG_RE.sub('', html)
""",
            1,
            2,
            3,
        ),
        _e(
            "html5lib/html5lib-python@1d9f391f6f92:html5lib/inputstream.py::HTMLBinaryInputStream.changeEncoding",
            """\
def changeEncoding(self, newEncoding):
    if newEncoding.name in ("utf-16be", "utf-16le"):
        assert newEncoding is not None
    else:
        self.reset()
        self.charEncoding = (newEncoding, "certain")
""",
            """\
def changeEncoding(self, newEncoding):
    if newEncoding.name in ("utf-16be", "utf-16le"):
        assert newEncoding is not None
    else:
        self.charEncoding = (newEncoding, "certain")
        self.reset()
""",
            4,
            5,
            6,
        ),
        _e(
            "ipython/ipython@73c730a42593:IPython/nbconvert/nbconvertapp.py::NbConvertApp.initialize",
            """\
def initialize(self, argv):
    super(NbConvertApp, self).initialize(argv)
    self.init_syspath()
""",
            """\
def initialize(self, argv):
    self.init_syspath()
    super(NbConvertApp, self).initialize(argv)
""",
            1,
            2,
            3,
        ),
    ),
    "swapped-unpacking": (
        _e(
            "beetbox/beets@0bb395fa8c6c:beetsplug/mpdstats.py::MPDStats.on_play",
            """\
def on_play(self, status):
    duration, played = map(int, status['time'].split(':', 1))
""",
            """\
def on_play(self, status):
    played, duration = map(int, status['time'].split(':', 1))
""",
            2,
        ),
        _e(
            "buildbot/buildbot@0512388cacc6:master/buildbot/sourcestamp.py::SourceStamp.getSourceStampId",
            """\
def getSourceStampId(self):
    patch_body, patch_level = self.patch
""",
            """\
def getSourceStampId(self):
    patch_level, patch_body = self.patch
""",
            2,
        ),
        _e(
            "celery/celery@f2856773fd52:celery/task/trace.py::TraceInfo.handle_failure",
            """\
def handle_failure(self):
    _, type_, tb = sys.exc_info()
""",
            """\
def handle_failure(self):
    type_, _, tb = sys.exc_info()
""",
            2,
        ),
        _e(
            "pallets/werkzeug@42aecfb6e1e5:werkzeug/serving.py::generate_adhoc_ssl_context",
            """\
def generate_adhoc_ssl_context():
    pkey, cert = generate_adhoc_ssl_pair()
""",
            """\
def generate_adhoc_ssl_context():
    cert, pkey = generate_adhoc_ssl_pair()
""",
            2,
        ),
    ),
}

# The whole mining: 26,018 commits of 77 repositories that change one function by at most
# three lines, 9,942 of them saying they fix something; of those, how many each class makes.
FOUND: dict[str, tuple[int, int]] = {  # class -> (fix commits, projects) it makes
    "comparison-operator": (43, 26),
    "arithmetic-operator": (12, 9),
    "boolean-operator": (8, 7),
    "negated-condition": (7, 7),
    "dropped-not": (7, 6),
    "integer-literal": (30, 18),
    "boolean-literal": (15, 11),
    "missing-f-prefix": (6, 6),
    "other-literal": (32, 18),
    "shifted-bound": (5, 4),
    "shifted-argument": (3, 2),
    "dropped-condition": (23, 17),
    "converted-value": (92, 36),
    "none-test": (24, 17),
    "empty-guarded-list": (3, 2),  # a search of 90 repositories' histories for the pattern
    "none-check": (19, 11),
    "other-name": (106, 35),
    "other-attribute": (35, 21),
    "sibling-method": (13, 11),
    "own-class-name": (3, 3),
    "sibling-argument": (9, 8),
    "swapped-arguments": (16, 13),
    "swapped-unpacking": (6, 6),
    "dropped-term": (26, 17),
    "other-returned-name": (7, 7),
    "missing-return": (18, 11),
    "deleted-statement": (90, 34),
    "swapped-statements": (18, 11),
    "raised-exception": (11, 11),
    "same-edit-everywhere": (9, 8),
    "pair": (9, 9),
}
