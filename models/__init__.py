"""The ONNX card model, its model card, and the code that renders training scenes and trains it."""

CONFIDENCE_THRESHOLD = 0.9
"""Least probability, in both the crop and its half-turned view, for a card to be called.

Below it the reader says ``unknown`` rather than guess; ``vision.classifier``
uses the same value, and ``models.evaluate`` measures the model at it.
"""
