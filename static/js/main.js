// Entry point of the page: opens the Socket.IO connection and shows its state.
import { io } from "/static/vendor/socket.io.esm.min.js";

const status = document.getElementById("connection");
const socket = io({ transports: ["websocket"] });

socket.on("connect", () => {
  document.body.dataset.connected = "true";
  document.body.dataset.transport = socket.io.engine.transport.name;
  status.textContent = "Connected";
});
socket.on("disconnect", () => {
  document.body.dataset.connected = "false";
  status.textContent = "Disconnected — reconnecting…";
});
