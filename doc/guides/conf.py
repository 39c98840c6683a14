# SPDX-License-Identifier: BSD-3-Clause
# Sphinx configuration of the pmrdma guides:
#   sphinx-build -b html doc/guides build/doc/html
project = 'pmrdma'
copyright = 'pmrdma contributors'
master_doc = 'index'
exclude_patterns = ['_build']
highlight_language = 'c'
