"""Local servers for tests and benchmarks: a real llama.cpp server (`llama_server`) and a
fault-injecting OpenAI-compatible server (`fault_server`). Both bind 127.0.0.1 only."""
