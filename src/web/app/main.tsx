// The web client's entry point: the sign-in page, or the chat once signed in.
import { render } from 'preact';
import { App } from './ui/App.js';
import './style.css';

render(<App />, document.getElementById('app')!);
