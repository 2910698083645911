"""Temperature conversions."""


def celsius_to_fahrenheit(celsius: float) -> float:
    """Degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 32
