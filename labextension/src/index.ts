/**
 * The jupyter-design-projects JupyterLab plugin: a Project panel and a Design panel in the
 * right side bar, one shared poll of the server extension's status, read-only doc views in
 * the main area, and "Insert cell" into the active notebook.
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  Clipboard,
  Dialog,
  ICommandPalette,
  MainAreaWidget,
  showDialog
} from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';
import { ServerConnection } from '@jupyterlab/services';
import { LabIcon } from '@jupyterlab/ui-components';

import { PanelApi, Send } from './api';
import { cardAccessPlugin } from './cardAccess';
import { codeRendererFactory, ICodeHost } from './code';
import { readCellSource } from './format';
// the panels are built when the plugin activates, so these load at start either way
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { PanelModel } from './model';
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { DesignPanel, DocView, IPanelHost, ProjectPanel } from './panels';
import { IInsertTarget } from './render';

/** Where the server extension's routes live under the server's base URL. */
const ROUTE_PREFIX = 'jupyter-design-projects';

const COMMANDS = {
  openProject: 'jupyter-design-projects:open-project-panel',
  openDesign: 'jupyter-design-projects:open-design-panel'
};

const PROJECT_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<g class="jp-icon3" fill="#616161">' +
  '<path d="M4 3h11l5 5v13H4zm10 1.5V9h4.5zM7 12h10v1.6H7zm0 3.5h10v1.6H7z"/>' +
  '</g></svg>';

const DESIGN_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<g class="jp-icon3" fill="#616161">' +
  '<path d="M12 2 4 5.5v6c0 5 3.4 9.3 8 10.5 4.6-1.2 8-5.5 8-10.5v-6zm-1.2 14.2-3.6-3.6' +
  ' 1.4-1.4 2.2 2.2 5-5 1.4 1.4z"/>' +
  '</g></svg>';

/** Requests through JupyterLab's own connection: its auth and the X-XSRFToken header. */
export function serverSend(): Send {
  const settings = ServerConnection.makeSettings();
  return (path, init) =>
    ServerConnection.makeRequest(
      URLExt.join(settings.baseUrl, ROUTE_PREFIX, path),
      {
        method: init.method,
        body: init.body,
        headers:
          init.body === undefined
            ? undefined
            : { 'Content-Type': 'application/json' }
      },
      settings
    );
}

/** A doc's read-only view, in the main area's usual frame (toolbar, title, close). */
function docViewWidget(
  api: PanelApi,
  path: string,
  id: string,
  icon: LabIcon
): MainAreaWidget<DocView> {
  const widget = new MainAreaWidget({ content: new DocView(api, path) });
  widget.id = id;
  widget.title.label = path;
  widget.title.caption = `${path} (read-only)`;
  widget.title.icon = icon;
  return widget;
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-design-projects:panels',
  description:
    'Project and Design side panels: the attached Project, Design consent, grants and journal.',
  autoStart: true,
  optional: [INotebookTracker, ICommandPalette, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker | null,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null
  ) => {
    const api = new PanelApi(serverSend());
    const projectIcon = new LabIcon({
      name: 'jupyter-design-projects:project',
      svgstr: PROJECT_SVG
    });
    const designIcon = new LabIcon({
      name: 'jupyter-design-projects:design',
      svgstr: DESIGN_SVG
    });
    const views = new Map<string, MainAreaWidget<DocView>>();
    let opened = 0;
    const panels: (ProjectPanel | DesignPanel)[] = [];

    const insertTarget = (): IInsertTarget => {
      if (!tracker) {
        return { enabled: false, why: 'The notebook extension is not loaded.' };
      }
      if (!tracker.currentWidget) {
        return {
          enabled: false,
          why: 'Open a notebook to insert a cell into it.'
        };
      }
      return { enabled: true, why: '' };
    };

    const host: IPanelHost = {
      openDoc: path => {
        let view = views.get(path);
        if (!view || view.isDisposed) {
          view = docViewWidget(api, path, `jdp-doc-${++opened}`, projectIcon);
          views.set(path, view);
          view.disposed.connect(() => views.delete(path));
          app.shell.add(view, 'main');
        }
        app.shell.activateById(view.id);
        void view.content.load();
      },
      insertCell: path => {
        const notebookPanel = tracker?.currentWidget;
        if (!notebookPanel) {
          return false;
        }
        const notebook = notebookPanel.content;
        NotebookActions.insertBelow(notebook);
        if (notebook.activeCell?.model.type !== 'code') {
          NotebookActions.changeCellType(notebook, 'code');
        }
        notebook.activeCell?.model.sharedModel.setSource(readCellSource(path));
        app.shell.activateById(notebookPanel.id);
        return true;
      },
      insertTarget,
      confirm: async (title, body, accept) => {
        const result = await showDialog({
          title,
          body,
          buttons: [Dialog.cancelButton(), Dialog.okButton({ label: accept })]
        });
        return result.button.accept;
      }
    };

    const model = new PanelModel(api, {
      isVisible: () => panels.some(panel => panel.isVisible)
    });
    const projectPanel = new ProjectPanel(model, host);
    projectPanel.title.icon = projectIcon;
    const designPanel = new DesignPanel(model, host);
    designPanel.title.icon = designIcon;
    panels.push(projectPanel, designPanel);

    app.shell.add(projectPanel, 'right', { rank: 900 });
    app.shell.add(designPanel, 'right', { rank: 901 });
    if (restorer) {
      restorer.add(projectPanel, projectPanel.id);
      restorer.add(designPanel, designPanel.id);
    }
    tracker?.currentChanged.connect(() => {
      projectPanel.update();
    });
    // code to copy (%design history --copy N): Copy and Insert-cell buttons, drawn by
    // this extension only, in every notebook's own renderer registry
    const codeHost: ICodeHost = {
      copy: text => Clipboard.copyToSystem(text),
      insertBelow: (node, code) => {
        const notebookPanel = tracker?.find(panel => panel.node.contains(node));
        const notebook = notebookPanel?.content;
        const index =
          notebook?.widgets.findIndex(cell => cell.node.contains(node)) ?? -1;
        if (!notebookPanel || !notebook || index < 0) {
          return false;
        }
        notebook.activeCellIndex = index;
        NotebookActions.insertBelow(notebook);
        if (notebook.activeCell?.model.type !== 'code') {
          NotebookActions.changeCellType(notebook, 'code');
        }
        notebook.activeCell?.model.sharedModel.setSource(code);
        return true;
      }
    };
    const codeFactory = codeRendererFactory(codeHost);
    tracker?.forEach(panel => panel.content.rendermime.addFactory(codeFactory));
    tracker?.widgetAdded.connect((_sender, panel) =>
      panel.content.rendermime.addFactory(codeFactory)
    );

    const entries: [string, string, ProjectPanel | DesignPanel][] = [
      [COMMANDS.openProject, 'Open the Project panel', projectPanel],
      [COMMANDS.openDesign, 'Open the Design panel', designPanel]
    ];
    for (const [id, label, panel] of entries) {
      app.commands.addCommand(id, {
        label,
        describedBy: { args: { type: 'object', properties: {} } },
        execute: () => {
          app.shell.activateById(panel.id);
          return model.refresh(true);
        }
      });
      palette?.addItem({ command: id, category: 'Design & Projects' });
    }
    void app.restored.then(() => model.start());
  }
};

export default [plugin, cardAccessPlugin];
