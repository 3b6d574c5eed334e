"""Stand-in for python-dotenv (see ../README.md): the environment is set by the caller."""


def load_dotenv(*args, **kwargs):
    return False
