"""The games, one package each: rules, components, encoding, render."""
