from appconfig import bind_address, get_port


def test_port_from_string():
    assert get_port({"port": "9000"}) == 9000


def test_missing_port_uses_default():
    assert get_port({}) == 8080


def test_bind_address():
    assert bind_address({"host": "0.0.0.0", "port": 80}) == "0.0.0.0:80"
