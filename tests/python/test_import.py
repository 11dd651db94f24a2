import ringlab


def test_version_is_the_library_version():
    assert isinstance(ringlab.__version__, str) and ringlab.__version__
