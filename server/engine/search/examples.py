# ruff: noqa: E501, W291 (the examples keep their code's own lines)
"""The real fixes each edit class is known by (registry.py): minimal before/after pairs, each
reduced from one fix commit of a public repository and cited as
`owner/repo@commit:path::function`. Reduced means: statements that play no part in the fix are
removed (delta debugging, while the class still makes the fix), so an example illustrates the
fix pattern; it is not the project's code.

`lines` are the example's changed lines (1-based in `before`), where the search is told to look;
`raises` stands for the failing tests' evidence (evidence.py) that the fix commit's own tests
gave. Found by mining the histories of public repositories for commits that
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


def _e(source: str, before: str, after: str, *lines: int, raises: tuple[str, ...] = ()) -> Example:
    return Example(source, before, after, tuple(lines), raises)


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
        _e(
            "jazzband/prettytable@cd8f2b881c6c:src/prettytable/prettytable.py::PrettyTable._compute_widths",
            """\
def _compute_widths(self):
    markup_chars = per_col_padding * len(widths) - len(widths) - 1
""",
            """\
def _compute_widths(self):
    markup_chars = per_col_padding * len(widths) + len(widths) - 1
""",
            2,
        ),
        _e(
            "networkx/networkx@f2debbc61a39:networkx/generators/random_graphs.py::dense_gnm_random_graph",
            """\
def dense_gnm_random_graph(n):
    mmax = n * (n - 1) / 2
""",
            """\
def dense_gnm_random_graph(n):
    mmax = n * (n - 1) // 2
""",
            2,
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
        _e(
            "sphinx-doc/sphinx@b95d239f6858:sphinx/util/docutils.py::sphinx_domains.__exit__",
            """\
def __exit__(self):
    return True
""",
            """\
def __exit__(self):
    return False
""",
            2,
        ),
        _e(
            "sqlalchemy/sqlalchemy@7a1bbdd8cf4c:lib/sqlalchemy/databases/firebird.py::FBDialect.supports_sane_rowcount",
            """\
def supports_sane_rowcount(self):
    return True
""",
            """\
def supports_sane_rowcount(self):
    return False
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
        _e(
            "python/mypy@f6ebf108f76d:mypy/checker.py::TypeChecker.check_compatibility_final_super",
            """\
def check_compatibility_final_super(self, node, base):
    if base.fullname in ENUM_BASES and node.name in ENUM_SPECIAL_PROPS:
        return True
""",
            """\
def check_compatibility_final_super(self, node, base):
    if base.fullname in ENUM_BASES or node.name in ENUM_SPECIAL_PROPS:
        return True
""",
            2,
        ),
    ),
    "comparison-operator": (
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
        _e(
            "html5lib/html5lib-python@c09a92bed277:html5lib/inputstream.py::BufferedStream.seek",
            """\
def seek(self, pos):
    assert pos < self._bufferedBytes()
""",
            """\
def seek(self, pos):
    assert pos <= self._bufferedBytes()
""",
            2,
        ),
        _e(
            "pallets/jinja@85b9c8ab3994:jinja2/loaders.py::DictLoader.get_source",
            """\
def get_source(self, template):
    return source, None, lambda: source != self.mapping.get(template)
""",
            """\
def get_source(self, template):
    return source, None, lambda: source == self.mapping.get(template)
""",
            2,
        ),
    ),
    "deleted-statement": (
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
            "aio-libs/aiohttp@0d63f7a73568:aiohttp/web.py::RequestHandlerFactory.finish_connections",
            """\
def finish_connections(self):
    yield from asyncio.sleep(0, loop=self._loop)
    self._connections.clear()
""",
            """\
def finish_connections(self):
    self._connections.clear()
""",
            2,
        ),
        _e(
            "celery/celery@b4b38987b886:celery/utils/threads.py::bgThread.stop",
            """\
def stop(self):
    print("JOINING")
    self.join(1e100)
""",
            """\
def stop(self):
    self.join(1e100)
""",
            2,
        ),
    ),
    "dropped-condition": (
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
            "ipython/ipython@605ed1cd2d33:IPython/html/widgets/widget_container.py::ContainerWidget._children_changed",
            """\
def _children_changed(self, new):
    if new is not None and isinstance(new, list):
        self._children = [add_item(i) for i in new if not i.model_id in seen]
""",
            """\
def _children_changed(self, new):
    if new is not None:
        self._children = [add_item(i) for i in new if not i.model_id in seen]
""",
            2,
        ),
        _e(
            "networkx/networkx@519c6ac658a9:networkx/generators/bipartite.py::bipartite_random_graph",
            """\
def bipartite_random_graph(p):
    if p <= 0 or p >= 1:
        return G
""",
            """\
def bipartite_random_graph(p):
    if p <= 0:
        return G
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
        _e(
            "ipython/ipython@b84afae9c4e1:converters/latex_transformer.py::remove_math_space",
            'def remove_math_space(text):\n    for index, char in enumerate(text):\n        ptext = ptext+text[math_start_index:index]+"\\n"\n',
            """\
def remove_math_space(text):
    for index, char in enumerate(text):
        ptext = ptext+text[math_start_index:index]
""",
            3,
        ),
        _e(
            "psf/black@262ad62ca9f1:src/black/trans.py::StringSplitter._get_illegal_split_indices",
            """\
def _get_illegal_split_indices(self):
    for it in iterators:
        for begin, end in it:
            illegal_indices.update(range(begin, end + 1))
""",
            """\
def _get_illegal_split_indices(self):
    for it in iterators:
        for begin, end in it:
            illegal_indices.update(range(begin, end))
""",
            4,
        ),
    ),
    "integer-literal": (
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
            "joke2k/faker@a8ad0bba7917:faker/providers/ssn/pt_BR/__init__.py::checksum",
            """\
def checksum():
    return 1
""",
            """\
def checksum():
    return 0
""",
            2,
        ),
        _e(
            "pallets/werkzeug@23bc0f992e03:werkzeug/http.py::Accept.values",
            """\
def values(self):
    return [x[1] for x in self]
""",
            """\
def values(self):
    return [x[0] for x in self]
""",
            2,
        ),
        _e(
            "pygments/pygments@6b615e68374a:pygments/util.py::doctype_matches",
            """\
def doctype_matches():
    doctype = m.group(2)
""",
            """\
def doctype_matches():
    doctype = m.group(1)
""",
            2,
        ),
    ),
    "missing-f-prefix": (
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
            "encode/httpx@336204f0121a:httpx/_transports/default.py::AsyncHTTPTransport.__init__",
            """\
def __init__(self, http1, http2, limits, proxy, socket_options):
    if proxy is None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=http1,
            http2=http2,
            socket_options=socket_options,
        )
    elif proxy.url.scheme in ("http", "https"):
        self._pool = httpcore.AsyncHTTPProxy(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=http1,
            http2=http2,
            socket_options=socket_options,
        )
    elif proxy.url.scheme in ("socks5", "socks5h"):
        import socksio  # noqa
    else:  # pragma: no cover
        raise ValueError(
            "Proxy protocol must be either 'http', 'https', 'socks5', or 'socks5h',"
            " but got {proxy.url.scheme!r}."
        )
""",
            """\
def __init__(self, http1, http2, limits, proxy, socket_options):
    if proxy is None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=http1,
            http2=http2,
            socket_options=socket_options,
        )
    elif proxy.url.scheme in ("http", "https"):
        self._pool = httpcore.AsyncHTTPProxy(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=http1,
            http2=http2,
            socket_options=socket_options,
        )
    elif proxy.url.scheme in ("socks5", "socks5h"):
        import socksio  # noqa
    else:  # pragma: no cover
        raise ValueError(
            "Proxy protocol must be either 'http', 'https', 'socks5', or 'socks5h',"
            f" but got {proxy.url.scheme!r}."
        )
""",
            26,
            27,
            28,
        ),
        _e(
            "joke2k/faker@3b1beb3b9c11:faker/providers/python/__init__.py::Provider.pyobject",
            """\
def pyobject(self, object_type):
    if object_type is None:
        return None
    elif object_type == bool:
        return self.pybool()
    elif object_type == str:
        return self.pystr()
    elif object_type == float:
        return self.pyfloat()
    elif object_type == int:
        return self.pyint()
    elif object_type == tuple:
        return self.pytuple()
    elif object_type == set:
        return self.pyset()
    elif object_type == list:
        return self.pylist()
    elif object_type == Iterable:
        return self.pyiterable()
    elif object_type == dict:
        return self.pydict()
    else:
        raise ValueError("Object type `{object_type}` is not supported by `pyobject` function")
""",
            """\
def pyobject(self, object_type):
    if object_type is None:
        return None
    elif object_type == bool:
        return self.pybool()
    elif object_type == str:
        return self.pystr()
    elif object_type == float:
        return self.pyfloat()
    elif object_type == int:
        return self.pyint()
    elif object_type == tuple:
        return self.pytuple()
    elif object_type == set:
        return self.pyset()
    elif object_type == list:
        return self.pylist()
    elif object_type == Iterable:
        return self.pyiterable()
    elif object_type == dict:
        return self.pydict()
    else:
        raise ValueError(f"Object type `{object_type}` is not supported by `pyobject` function")
""",
            23,
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
            "celery/kombu@144c3396229a:kombu/entity.py::Queue.__eq__",
            """\
def __eq__(self, other):
    return (self.bindings == other.bindins)
""",
            """\
def __eq__(self, other):
    return (self.bindings == other.bindings)
""",
            2,
        ),
        _e(
            "ipython/ipython@6b88833a6598:IPython/kernel/kernelspec.py::KernelSpec.to_dict",
            """\
def to_dict(self):
    if self.pygments_lexer != self.language:
        d['pygments_lexer'] = self.pygment_lexer
""",
            """\
def to_dict(self):
    if self.pygments_lexer != self.language:
        d['pygments_lexer'] = self.pygments_lexer
""",
            3,
        ),
    ),
    "other-literal": (
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
            "jazzband/prettytable@fd24cf6b4dbd:src/prettytable/prettytable.py::PrettyTable._compute_widths",
            """\
def _compute_widths(self, rows):
    for row in rows:
        for index, value in enumerate(row):
            min_width = 2
    self._widths = [max(1, int(w * scale)) for w in widths]
""",
            """\
def _compute_widths(self, rows):
    for row in rows:
        for index, value in enumerate(row):
            min_width = 1
    self._widths = [max(1, int(w * scale)) for w in widths]
""",
            4,
        ),
        _e(
            "joke2k/faker@a8ad0bba7917:faker/providers/ssn/pt_BR/__init__.py::checksum",
            """\
def checksum():
    if reminder == 0:
        return 1
""",
            """\
def checksum():
    if reminder == 0:
        return 0
""",
            3,
        ),
        _e(
            "pypa/pip@6e32b21b0439:pip/util.py::unpack_file",
            """\
def unpack_file(filename, location):
    if (filename.endswith('.whl')):
        unzip_file(filename, location, flatten=not filename.endswith(('.pybundle', 'whl')))
""",
            """\
def unpack_file(filename, location):
    if (filename.endswith('.whl')):
        unzip_file(filename, location, flatten=not filename.endswith(('.pybundle', '.whl')))
""",
            3,
        ),
    ),
    "other-name": (
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
            "bottlepy/bottle@832b8c8a7241:bottle.py::ResourceManager.open",
            """\
def open(self, name, *args, **kwargs):
    fname = self.lookup(name)
    return self.opener(name, *args, **kwargs)
""",
            """\
def open(self, name, *args, **kwargs):
    fname = self.lookup(name)
    return self.opener(fname, *args, **kwargs)
""",
            3,
        ),
        _e(
            "celery/celery@1ac10f3b8f2b:celery/backends/riak.py::RiakBackend.__init__",
            """\
def __init__(self, protocol, url):
    uprot, uhost, uport, uname, upass, ubucket, _ = _parse_url(url)
    self.protocol = uprot
""",
            """\
def __init__(self, protocol, url):
    uprot, uhost, uport, uname, upass, ubucket, _ = _parse_url(url)
    self.protocol = protocol
""",
            3,
        ),
        _e(
            "ipython/ipython@425b8229f0fe:IPython/kernel/zmq/session.py::Session.send_raw",
            """\
def send_raw(self, stream, msg_list, flags):
    to_send = []
    stream.send_multipart(msg_list, flags)
""",
            """\
def send_raw(self, stream, msg_list, flags):
    to_send = []
    stream.send_multipart(to_send, flags)
""",
            3,
        ),
    ),
    "other-returned-name": (
        _e(
            "html5lib/html5lib-python@13f7c3738c8c:src/html5lib/inputstream.py::HTMLInputStream.seek.<locals>.BufferedStream.read",
            """\
def read(self, chars):
    if chars > len(self.data):
        self.data = ''
    elif not self.data:
        return self.stream.read(chars)
    else:
        result = self.data[:chars]
        return resutl
""",
            """\
def read(self, chars):
    if chars > len(self.data):
        self.data = ''
    elif not self.data:
        return self.stream.read(chars)
    else:
        result = self.data[:chars]
        return result
""",
            8,
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
        _e(
            "pallets/werkzeug@32dce275a144:werkzeug/utils.py::MultiDict.setdefault",
            """\
def setdefault(self, default):
    return rv
""",
            """\
def setdefault(self, default):
    return default
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
            "Suor/funcy@481f1905fa86:funcy/decorators.py::make_call.<locals>.Call.__getattr__",
            'def __getattr__(self, name):\n    try:\n        return self.__dict__[name]\n    except KeyError:\n        raise NameError("Function %s does not have argument %s" \\\n                        % (func.__name__, name))\n',
            'def __getattr__(self, name):\n    try:\n        return self.__dict__[name]\n    except KeyError:\n        raise AttributeError("Function %s does not have argument %s" \\\n                             % (func.__name__, name))\n',
            5,
            6,
            raises=("AttributeError",),
        ),
        _e(
            "jpadilla/pyjwt@14c5f46391aa:jwt/algorithms.py::HMACAlgorithm.prepare_key",
            """\
def prepare_key(self):
    raise InvalidAlgorithmError(
        'The specified key is an assymetric key or x509 certificate and'
        ' should not be used as an HMAC secret.')
""",
            """\
def prepare_key(self):
    raise InvalidKeyError(
        'The specified key is an assymetric key or x509 certificate and'
        ' should not be used as an HMAC secret.')
""",
            2,
            raises=("InvalidKeyError",),
        ),
        _e(
            "pytest-dev/pluggy@aac593436a65:src/pluggy/_hooks.py::_HookCaller.set_specification",
            """\
def set_specification(self):
    raise RuntimeError(
        f"Hook {self.spec.name!r} is already registered "
        f"within namespace {self.spec.namespace}"
    )
""",
            """\
def set_specification(self):
    raise ValueError(
        f"Hook {self.spec.name!r} is already registered "
        f"within namespace {self.spec.namespace}"
    )
""",
            2,
            raises=("ValueError",),
        ),
        _e(
            "scrapy/scrapy@987ceb540e58:scrapy/trunk/scrapy/item/models.py::ScrapedItem.__init__",
            """\
def __init__(self, data):
    raise UsageError("Initialize with dict, not %s" % data.__class__.__name__)
""",
            """\
def __init__(self, data):
    raise TypeError("Initialize with dict, not %s" % data.__class__.__name__)
""",
            2,
            raises=("TypeError",),
        ),
    ),
    "shifted-bound": (
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
            "pytest-dev/pytest@f05333ab75db:_pytest/terminal.py::TerminalReporter.rewrite",
            """\
def rewrite(self, line):
    fill_count = self.writer.fullwidth - len(line)
""",
            """\
def rewrite(self, line):
    fill_count = self.writer.fullwidth - len(line) - 1
""",
            2,
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
    "sibling-argument": (
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
            "pytest-dev/pytest@21be7a259424:src/_pytest/python_api.py::_as_numpy_array",
            """\
def _as_numpy_array(obj):
    if np.isscalar(obj):
        return None
    elif isinstance(obj, np.ndarray):
        return obj
    elif hasattr(obj, "__array__") or hasattr("obj", "__array_interface__"):
        return np.asarray(obj)
""",
            """\
def _as_numpy_array(obj):
    if np.isscalar(obj):
        return None
    elif isinstance(obj, np.ndarray):
        return obj
    elif hasattr(obj, "__array__") or hasattr(obj, "__array_interface__"):
        return np.asarray(obj)
""",
            6,
        ),
        _e(
            "python/mypy@6f061be4c860:mypyc/genops_for.py::ForRange.gen_step",
            """\
def gen_step(self):
    if (is_short_int_rprimitive(self.end_reg.type)):
        new_val = builder.primitive_op(
            unsafe_short_add, [builder.add(LoadInt(1))], line)
    else:
        new_val = builder.binary_op(
            builder.read(self.index_target, line), builder.add(LoadInt(self.step)), '+', line)
""",
            """\
def gen_step(self):
    if (is_short_int_rprimitive(self.end_reg.type)):
        new_val = builder.primitive_op(
            unsafe_short_add, [builder.add(LoadInt(self.step))], line)
    else:
        new_val = builder.binary_op(
            builder.read(self.index_target, line), builder.add(LoadInt(self.step)), '+', line)
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
            "mahmoud/glom@b8458b6edd70:glom/core.py::Check._handler",
            """\
def _handler(self, target, scope):
    target = scope[glom](self.specifier, target, scope)
""",
            """\
def _handler(self, target, scope):
    target = scope[glom](target, self.specifier, scope)
""",
            2,
        ),
        _e(
            "pallets/werkzeug@fb7c24c53d21:werkzeug/datastructures.py::Accept.best_match",
            """\
def best_match(self, matches):
    for server_item in matches:
        for client_item, quality in self:
            if self._value_matches(client_item, server_item):
                result = server_item
""",
            """\
def best_match(self, matches):
    for server_item in matches:
        for client_item, quality in self:
            if self._value_matches(server_item, client_item):
                result = server_item
""",
            4,
        ),
        _e(
            "pytest-dev/pytest@27d932e88215:src/_pytest/outcomes.py::exit",
            """\
def exit(msg, returncode):
    raise Exit(returncode, msg)
""",
            """\
def exit(msg, returncode):
    raise Exit(msg, returncode)
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
            "html5lib/html5lib-python@1d9f391f6f92:html5lib/inputstream.py::HTMLBinaryInputStream.changeEncoding",
            """\
def changeEncoding(self, newEncoding):
    if newEncoding.name in ("utf-16be", "utf-16le"):
        assert newEncoding is not None
    elif newEncoding == self.charEncoding[0]:
        self.charEncoding = (self.charEncoding[0], "certain")
    else:
        self.reset()
        self.charEncoding = (newEncoding, "certain")
""",
            """\
def changeEncoding(self, newEncoding):
    if newEncoding.name in ("utf-16be", "utf-16le"):
        assert newEncoding is not None
    elif newEncoding == self.charEncoding[0]:
        self.charEncoding = (self.charEncoding[0], "certain")
    else:
        self.charEncoding = (newEncoding, "certain")
        self.reset()
""",
            6,
            7,
            8,
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
        _e(
            "pytest-dev/pytest@47ed628df2b3:src/_pytest/monkeypatch.py::MonkeyPatch.setattr",
            """\
def setattr(self, target, name, value):
    self._setattr.append((target, name, oldval))
    setattr(target, name, value)
""",
            """\
def setattr(self, target, name, value):
    setattr(target, name, value)
    self._setattr.append((target, name, oldval))
""",
            1,
            2,
            3,
        ),
    ),
    "swapped-unpacking": (
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
        _e(
            "psf/requests@906fcd732889:requests/auth.py::OAuth1.__call__",
            """\
def __call__(self, r):
    full_url, new_body, headers = self.client.sign(r.url, unicode(r.method), body, r.headers)
""",
            """\
def __call__(self, r):
    full_url, headers, new_body = self.client.sign(r.url, unicode(r.method), body, r.headers)
""",
            2,
        ),
    ),
}

# The whole mining: 14,453 commits of 57 repositories that change one function by at most
# three lines, 5,557 of them saying they fix something; of those, how many each class makes.
FOUND: dict[str, tuple[int, int]] = {  # class -> (fix commits, projects) it makes
    "comparison-operator": (22, 15),
    "arithmetic-operator": (5, 5),
    "boolean-operator": (4, 4),
    "integer-literal": (17, 10),
    "boolean-literal": (6, 4),
    "missing-f-prefix": (3, 3),
    "other-literal": (9, 5),
    "shifted-bound": (3, 2),
    "dropped-condition": (16, 13),
    "other-name": (58, 23),
    "other-attribute": (20, 13),
    "sibling-argument": (3, 3),
    "swapped-arguments": (7, 6),
    "swapped-unpacking": (3, 3),
    "dropped-term": (11, 8),
    "other-returned-name": (3, 3),
    "deleted-statement": (39, 21),
    "swapped-statements": (7, 6),
    "raised-exception": (8, 7),
    "pair": (5, 4),
}
