"""stub"""
FIGURES: dict = {}
