"""The llmptx console scripts of the Python running this file.

    console_scripts.py list             their names, one a line
    console_scripts.py run NAME ARG...  runs one; its exit status

They are in the interpreter's scripts folder (sysconfig), where pip put
them: bin/ of the build's virtual environment.
"""
import os
import subprocess
import sys
import sysconfig

folder = sysconfig.get_path('scripts')
if sys.argv[1] == 'list':
    for name in sorted(os.listdir(folder)):
        if name.startswith('llmptx-'):
            print(name)
    sys.exit(0)
sys.exit(subprocess.call([os.path.join(folder, sys.argv[2])] + sys.argv[3:]))
