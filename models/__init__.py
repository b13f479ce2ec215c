"""The ONNX card model, its model card, and the code that renders training scenes and trains it."""
