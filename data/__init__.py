"""The small source tables of the book, installed as the package data ``benchvote.tables``.

Read them with :func:`benchvote.data.load_table`; ``README.md`` here says where every number comes from.
"""
