// The operator's status page (served on the metrics port).
import { render } from 'preact';
import { StatusPage } from './StatusPage.js';
import './style.css';

render(<StatusPage />, document.getElementById('app')!);
