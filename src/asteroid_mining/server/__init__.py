"""The game server: REST lobby and games, play over WebSocket, one owner task per live game, static client.

    from asteroid_mining.server import create_app, Settings
    app = create_app(Settings(data_dir="games"))      # an ASGI app; `asteroid-mining serve` runs it on uvicorn
"""

from .app import create_app
from .config import Settings

__all__ = ["Settings", "create_app"]
