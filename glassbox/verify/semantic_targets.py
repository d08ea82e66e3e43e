"""The semantic check's default targets: standard-library modules and the CPython tests of each.

A target is a top-level module or package (a package is decompiled whole; its own test folders
are copied as they are) and the test modules run against it. None is imported at interpreter
start-up under ``-s -S`` on 3.10-3.12; 3.13 imports ``linecache`` then, so its run shows how a
module that cannot be shadowed is reported. A target absent from a version's standard library
(``tomllib`` before 3.11, ``_pydatetime`` before 3.12) is left out there and listed as absent;
a test module absent from a version's ``Lib/test`` is left out of that target there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    module: str  # top-level name: argparse, email, _pydecimal
    tests: tuple[str, ...]  # test modules or packages: test.test_argparse, test.test_email

    @staticmethod
    def parse(text: str) -> Target:
        """``NAME`` (tests: ``test.test_NAME``) or ``NAME=test_a+test_b``."""
        module, _, tests = text.partition("=")
        names = [t.strip() for t in tests.split("+") if t.strip()] or [f"test_{module}"]
        return Target(module, tuple(n if n.startswith("test.") else f"test.{n}" for n in names))


DEFAULT_TARGETS: tuple[Target, ...] = tuple(
    Target.parse(spec)
    for spec in (
        "argparse",
        "ast",
        "base64",
        "bdb",
        "bisect",
        "bz2",
        "calendar",
        "cmd",
        "code=test_code_module",
        "codeop",
        "colorsys",
        "compileall",
        "configparser",
        "contextlib=test_contextlib+test_contextlib_async",
        "copy",
        "copyreg",
        "csv",
        "dataclasses",
        "datetime",
        "dbm",
        "difflib",
        "dis",
        "doctest",
        "email",
        "enum",
        "filecmp",
        "fileinput",
        "fnmatch",
        "fractions",
        "ftplib",
        "functools",
        "genericpath",
        "getopt",
        "getpass",
        "gettext",
        "glob",
        "graphlib",
        "gzip",
        "hashlib",
        "heapq",
        "hmac",
        "html=test_html+test_htmlparser",
        "http=test_http_cookies",
        "imaplib",
        "inspect",
        "ipaddress",
        "json",
        "keyword",
        "linecache",
        "locale",
        "logging",
        "lzma",
        "mailbox",
        "mimetypes",
        "modulefinder",
        "netrc",
        "ntpath",
        "numbers=test_abstract_numbers",
        "operator",
        "optparse",
        "os",
        "pathlib",
        "pdb",
        "pickle=test_pickle+test_pickletools",
        "pkgutil",
        "platform",
        "plistlib",
        "poplib",
        "posixpath",
        "pprint",
        "profile=test_profile+test_cprofile",
        "pstats",
        "_py_abc=test_abc",
        "py_compile",
        "pyclbr",
        "_pydatetime=test_datetime",
        "_pydecimal=test_decimal",
        "_pyio=test_io",
        "queue",
        "quopri",
        "random",
        "re",
        "reprlib",
        "runpy",
        "sched",
        "secrets",
        "selectors",
        "shelve",
        "shlex",
        "shutil",
        "smtplib",
        "sqlite3",
        "stat",
        "statistics",
        "string",
        "stringprep",
        "_strptime=test_strptime",
        "struct",
        "symtable",
        "tabnanny",
        "tarfile",
        "tempfile",
        "textwrap",
        "timeit",
        "tokenize",
        "tomllib",
        "trace",
        "traceback",
        "types",
        "typing",
        "urllib=test_urlparse",
        "uuid",
        "warnings",
        "wave",
        "weakref",
        "xml=test_xml_etree+test_minidom+test_sax+test_pulldom+test_xml_dom_minicompat",
        "zipapp",
        "zipfile",
        "zipimport",
        "zoneinfo",
    )
)
