from temperature import celsius_to_fahrenheit, fahrenheit_to_celsius


def test_freezing_point() -> None:
    assert celsius_to_fahrenheit(0) == 32


def test_freezing_point_back() -> None:
    assert fahrenheit_to_celsius(32) == 0
