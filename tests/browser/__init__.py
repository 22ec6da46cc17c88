"""Tests in a real JupyterLab driven through Debian's chromium (Playwright)."""
