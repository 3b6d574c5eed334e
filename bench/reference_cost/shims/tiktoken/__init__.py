"""Stand-in for tiktoken's token count (see ../README.md): 4 tokens for 3 words."""


class _Encoding:
    def encode(self, text):
        return [0] * round(len(text.split()) * 4 / 3)


def get_encoding(name):
    return _Encoding()
