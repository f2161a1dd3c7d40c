from textwrap import dedent, indent


def layout(text):
    return indent(dedent(text), "> ")


print(layout("    a\n    b\n"))
