#!/usr/bin/env python3
# Regenerates lib/verbs/pmr_ibv_compat.h from lib/verbs/pmr_verbs.h:
# one "#define ibv_X pmr_X" per pmr_ name that has a libibverbs twin.
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
src = (root / 'lib/verbs/pmr_verbs.h').read_text()
code = re.sub(r'/\*.*?\*/', '', src, flags=re.S)
names = set(re.findall(r'\b(pmr_[A-Za-z0-9_]+|PMR_[A-Za-z0-9_]+)\b', code))
# pmrdma's own extensions: no ibv_ twin.
own = {'PMR_VERBS_H', 'pmr_device_create', 'pmr_set_progress_mode',
       'pmr_progress', 'pmr_progress_mode', 'PMR_PROGRESS_INLINE',
       'PMR_PROGRESS_SERVICE', 'PMR_PROGRESS_MANUAL', 'pmr_num_to_mtu',
       'pmr_mtu_to_num', 'pmr_be16', 'pmr_be32', 'pmr_be64'}
out = root / 'lib/verbs/pmr_ibv_compat.h'
text = out.read_text()
head, _, _ = text.partition('#include <linux/types.h>\n')
lines = []
for n in sorted(names - own):
    twin = ('ibv_' if n.startswith('pmr_') else 'IBV_') + n[4:]
    lines.append(f'#define {twin} {n}')
out.write_text(head + '#include <linux/types.h>\n\n' + '\n'.join(lines) +
               '\n\n#endif /* PMR_IBV_COMPAT_H */\n')
sys.exit(0)
