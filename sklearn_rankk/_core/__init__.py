"""The bottom layer: metric registry, validation, inputs, kernel and engine.

Nothing here imports from the layers above (file formats, parallel and
streaming evaluation, scorers, reports, displays, statistics).
"""
