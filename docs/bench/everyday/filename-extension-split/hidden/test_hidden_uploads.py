from uploads import is_allowed, safe_name, split_name


def test_hidden_file():
    assert split_name(".env") == (".env", "")


def test_double_extension():
    assert split_name("backup.tar.gz") == ("backup.tar", "gz")
    assert not is_allowed("invoice.pdf.exe")


def test_safe_name():
    assert safe_name("v1.2.docx", 2) == "v1.2 (2).docx"
