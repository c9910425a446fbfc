# Placeholder until the JIT lands: no in-process compiler linked.
