// The live page: everything comes from /events (liveview.js).
import { startLive } from "./liveview.js";
startLive();
